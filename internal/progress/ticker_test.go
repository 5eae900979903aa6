package progress

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestTickerOffTerminal: off a terminal the ticker writes nothing and
// leaves the certify log alone.
func TestTickerOffTerminal(t *testing.T) {
	var stderr bytes.Buffer
	var log io.Writer
	stop, _ := StartStatus(&stderr, "certifying", &log)
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

// TestModes: Quiet silences a bar and a ticker; Lines draws a bar off a
// terminal as whole lines, and both pass writes through.
func TestModes(t *testing.T) {
	var buf bytes.Buffer
	if b := New(Quiet(&buf), "x", 3); b != nil {
		t.Error("a bar on Quiet")
	}
	var log io.Writer
	stop, _ := StartStatus(Quiet(&buf), "x", &log)
	stop()
	if log != nil {
		t.Error("a ticker on Quiet")
	}
	b := New(Lines(&buf), "sweep", 2)
	if b == nil {
		t.Fatal("no bar on Lines")
	}
	b.Add(2)
	b.Done()
	if got := buf.String(); !strings.HasPrefix(got, "sweep") || !strings.HasSuffix(got, "\n") || strings.ContainsAny(got, "\r\x1b") {
		t.Errorf("Lines bar wrote %q, want whole lines", got)
	}
	stop, status := StartStatus(Lines(&buf), "verify", &log)
	status("3 boxes")
	stop()
	if log == nil {
		t.Error("no ticker on Lines")
	}
	buf.Reset()
	io.WriteString(Quiet(&buf), "note\n")
	io.WriteString(Lines(&buf), "note\n")
	if buf.String() != "note\nnote\n" {
		t.Errorf("writes through: %q", buf.String())
	}
}
