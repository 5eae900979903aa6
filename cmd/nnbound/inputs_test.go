package main

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/spf13/pflag"
)

func TestInputFlags(t *testing.T) {
	dir := t.TempDir()
	prop := filepath.Join(dir, "p.vnnlib")
	if err := os.WriteFile(prop, []byte("(declare-const X_0 Real)\n(declare-const X_1 Real)\n(declare-const Y_0 Real)\n"+
		"(assert (<= -2 X_0 2))\n(assert (<= 0 X_1 0.5))\n(assert (<= Y_0 1))\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		args   []string
		n      int
		lo, hi []float64
		note   bool
		err    string // "" for success
		usage  bool
	}{
		{"default", nil, 2, []float64{-1, -1}, []float64{1, 1}, false, "", false},
		{"box", []string{"--box", "0:0.5"}, 1, []float64{0}, []float64{0.5}, false, "", false},
		{"box negative", []string{"--box", "-3:-1"}, 2, []float64{-3, -3}, []float64{-1, -1}, false, "", false},
		{"box equals", []string{"--box=-1e-1:2"}, 1, []float64{-0.1}, []float64{2}, false, "", false},
		{"lo hi", []string{"--lo", "0,-1", "--hi", "1,2"}, 2, []float64{0, -1}, []float64{1, 2}, false, "", false},
		{"lo only", []string{"--lo", "0"}, 3, []float64{0, 0, 0}, []float64{1, 1, 1}, false, "", false},
		{"box and hi", []string{"--box", "0:4", "--hi", "1,2"}, 2, []float64{0, 0}, []float64{1, 2}, false, "", false},
		{"vnnlib", []string{"--vnnlib", prop}, 2, []float64{-2, 0}, []float64{2, 0.5}, true, "", false},

		{"box syntax", []string{"--box", "1"}, 1, nil, nil, false, `--box "1": want LO:HI, for example --box -1:1`, true},
		{"box inverted", []string{"--box", "1:-1"}, 1, nil, nil, false, "--box 1:-1 is inverted: lo 1 > hi -1", true},
		{"box nan", []string{"--box", "nan:1"}, 1, nil, nil, false, "--box: NaN is not a bound", true},
		{"box inf", []string{"--box", "-1:inf"}, 1, nil, nil, false, "--box: inf is not a finite bound", true},
		{"box word", []string{"--box", "a:1"}, 1, nil, nil, false, `--box: "a" is not a number`, true},
		{"box empty end", []string{"--box", ":1"}, 1, nil, nil, false, "--box: missing number", true},
		{"lo nan", []string{"--lo", "0,NaN"}, 2, nil, nil, false, "--lo: NaN is not a bound", true},
		{"lo hi inverted", []string{"--lo", "0,2", "--hi", "1,1"}, 2, nil, nil, false, "the input box is inverted at input 2: lo 2 > hi 1", true},
		{"lo above box", []string{"--lo", "3"}, 1, nil, nil, false, "the input box is inverted: lo 3 > hi 1", true},
		{"lo hi lengths", []string{"--lo", "0,0", "--hi", "1,1,1"}, 3, nil, nil, false, "--lo has 2 values but --hi has 3", true},
		{"wrong count", []string{"--lo", "0,0,0"}, 2, nil, nil, false, "--lo has 3 values but the network takes 2 inputs", true},
		{"wrong count one input", []string{"--hi", "1,1"}, 1, nil, nil, false, "--hi has 2 values but the network takes 1 input", true},
		{"vnnlib and box", []string{"--vnnlib", prop, "--box", "0:1"}, 2, nil, nil, false, "--vnnlib and --box both give the input box: use one", true},
		{"vnnlib and hi", []string{"--hi", "1", "--vnnlib", prop}, 2, nil, nil, false, "--vnnlib and --hi both give the input box: use one", true},
		{"vnnlib size", []string{"--vnnlib", prop}, 3, nil, nil, false, prop + " declares 2 inputs but the network takes 3", false},
		{"vnnlib missing", []string{"--vnnlib", filepath.Join(dir, "none.vnnlib")}, 1, nil, nil, false,
			"vnnlib: stat " + filepath.Join(dir, "none.vnnlib") + ": no such file or directory", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var f inputFlags
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			f.register(fs)
			if err := fs.Parse(c.args); err != nil {
				t.Fatal(err)
			}
			b, note, err := f.box(c.n)
			if c.err != "" {
				if err == nil {
					t.Fatalf("no error, box %v", b)
				}
				if err.Error() != c.err {
					t.Errorf("error\n got %s\nwant %s", err, c.err)
				}
				var ue usageError
				if errors.As(err, &ue) != c.usage {
					t.Errorf("usage error: %v, want %v", !c.usage, c.usage)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(b.Lo, c.lo) || !reflect.DeepEqual(b.Hi, c.hi) {
				t.Errorf("box [%v, %v], want [%v, %v]", b.Lo, b.Hi, c.lo, c.hi)
			}
			if (note != "") != c.note {
				t.Errorf("note %q", note)
			}
			if err := b.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestDescribeBox(t *testing.T) {
	cases := []struct {
		lo, hi []float64
		want   string
	}{
		{[]float64{-1}, []float64{1}, "[-1, 1]"},
		{[]float64{-1, -1, -1}, []float64{1, 1, 1}, "[-1, 1]^3"},
		{[]float64{0, -0.5}, []float64{1, 0.25}, "[0, 1] x [-0.5, 0.25]"},
		{[]float64{0, 1, 2, 3, 4}, []float64{1, 2, 3, 4, 5}, "[0, 1] x [1, 2] x ... x [4, 5] (5 inputs)"},
	}
	for _, c := range cases {
		var f inputFlags
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		f.register(fs)
		b, _, _ := f.box(len(c.lo))
		b.Lo, b.Hi = c.lo, c.hi
		if got := b.Describe(); got != c.want {
			t.Errorf("Box.Describe = %q, want %q", got, c.want)
		}
	}
}
