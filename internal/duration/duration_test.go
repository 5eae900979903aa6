package duration

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"60", time.Minute, ""},
		{"0.5", 500 * time.Millisecond, ""},
		{"0", 0, ""},
		{"1e-9", time.Nanosecond, ""},
		{" 2 ", 2 * time.Second, ""},
		{"-1", -time.Second, ""},
		{"90s", 90 * time.Second, ""},
		{"1m30s", 90 * time.Second, ""},
		{"500ms", 500 * time.Millisecond, ""},
		{"1e10", 0, "out of range"},
		{"NaN", 0, "out of range"},
		{"inf", 0, "out of range"},
		{"ten", 0, "neither a number of seconds nor a duration"},
		{"", 0, "neither"},
		{"5 s", 0, "neither"},
	} {
		d, err := Parse(tc.in)
		switch {
		case tc.err == "" && (err != nil || d != tc.want):
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.in, d, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("Parse(%q) = %v, %v; want an error saying %q", tc.in, d, err, tc.err)
		}
	}
}

func TestVar(t *testing.T) {
	d := 5 * time.Minute
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	f := Var(fs, &d, "timeout", "stop after this long")
	if f.DefValue != "5m0s" || !strings.Contains(f.Usage, "number of seconds") {
		t.Errorf("flag %+v", f)
	}
	if err := fs.Parse([]string{"--timeout", "0.25"}); err != nil || d != 250*time.Millisecond {
		t.Errorf("--timeout 0.25: %v, %v", d, err)
	}
	if err := fs.Parse([]string{"--timeout", "x"}); err == nil || !strings.Contains(err.Error(), `invalid argument "x" for "--timeout"`) {
		t.Errorf("--timeout x: %v", err)
	}
}
