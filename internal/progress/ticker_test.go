package progress

import (
	"bytes"
	"io"
	"testing"
)

// TestTickerOffTerminal: off a terminal the ticker writes nothing and
// leaves the certify log alone.
func TestTickerOffTerminal(t *testing.T) {
	var stderr bytes.Buffer
	var log io.Writer
	stop := StartTicker(&stderr, "certifying", &log)
	stop()
	if log != nil || stderr.Len() != 0 {
		t.Errorf("log %v, stderr %q: want both untouched", log, stderr.String())
	}
}

func TestTickerCounts(t *testing.T) {
	tk := &ticker{}
	for _, s := range []string{"certify: x1 in [0]..[1]: bound 1\n", "certify: a\ncertify: b\n", "other\n"} {
		if _, err := tk.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	if tk.sdps != 3 {
		t.Errorf("counted %d SDPs, want 3", tk.sdps)
	}
}
