package nnet

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/nn"
)

func TestTinyFiles(t *testing.T) {
	type sample struct{ x, y []float64 }
	raw := []sample{
		{[]float64{1, 0}, []float64{17, -6}},
		{[]float64{3, -2}, []float64{17, -6}}, // clipped to (1, 0)
		{[]float64{-0.5, 4}, []float64{3, 3}},
	}
	core := []sample{{[]float64{0.25, -0.5}, []float64{2, -0.875}}}
	unbounded := []sample{
		{[]float64{1e30, 1, -2}, []float64{1e30}},
		{[]float64{1, 1, 2}, []float64{1}},
	}
	for _, tc := range []struct {
		file    string
		core    bool
		samples []sample
		layers  int
		notes   int
	}{
		{"tiny.nnet", false, raw, 3, 0},
		{"tiny.nnet", true, core, 2, 0},
		{"trap.nnet", false, raw, 3, 4},
		{"trap.nnet", true, core, 2, 4},
		{"unbounded.nnet", false, unbounded, 1, 1},
	} {
		net, info, err := Read("testdata/"+tc.file, Options{Core: tc.core})
		if err != nil {
			t.Fatal(err)
		}
		if len(net.Layers) != tc.layers || len(info.Notes) != tc.notes {
			t.Errorf("%s core=%v: %d layers, notes %q; want %d layers, %d notes", tc.file, tc.core, len(net.Layers), info.Notes, tc.layers, tc.notes)
		}
		for _, s := range tc.samples {
			got, err := net.Eval(s.x)
			if err != nil {
				t.Fatal(err)
			}
			for i := range s.y {
				if math.Abs(got[i]-s.y[i]) > 1e-15*max(1, math.Abs(s.y[i])) {
					t.Errorf("%s core=%v: f(%v) = %v, want %v", tc.file, tc.core, s.x, got, s.y)
				}
			}
			if !tc.core {
				xn, err := info.NormaliseInput(s.x)
				if err != nil {
					t.Fatal(err)
				}
				coreNet, _, err := Read("testdata/"+tc.file, Options{Core: true})
				if err != nil {
					t.Fatal(err)
				}
				yn, _ := coreNet.Eval(xn)
				if y := info.DenormaliseOutput(yn); math.Abs(y[0]-s.y[0]) > 1e-15*max(1, math.Abs(s.y[0])) {
					t.Errorf("%s: denormalised core output %v, want %v", tc.file, y, s.y)
				}
			}
		}
	}
}

func TestTrapHeader(t *testing.T) {
	_, info, err := Read("testdata/trap.nnet", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if info.OutputMean != 1 || info.OutputRange != 8 {
		t.Errorf("output mean/range %v/%v, want the last entries 1/8", info.OutputMean, info.OutputRange)
	}
	if info.HeaderCounts != [4]int{4, 4, 5, 5} {
		t.Errorf("header counts %v", info.HeaderCounts)
	}
	if len(info.InputMin) != 2 || len(info.InputMean) != 2 {
		t.Errorf("input header entries %v %v, want 2 each", info.InputMin, info.InputMean)
	}
	if len(info.Comments) != 2 {
		t.Errorf("comments %q", info.Comments)
	}
}

// tinyText is testdata/tiny.nnet without comments, for the error cases.
const tinyText = `2,2,2,2,
2,2,2,
0,
-1.0,0.0,
1.0,4.0,
0.5,2.0,1.0,
2.0,4.0,8.0,
1.0,-1.0,
0.5,2.0,
0.25,
-0.5,
2.0,1.0,
-1.0,0.5,
0.0,
0.125,
`

func TestParseErrors(t *testing.T) {
	replaceLine := func(n int, with string) string {
		lines := strings.Split(tinyText, "\n")
		lines[n-1] = with
		return strings.Join(lines, "\n")
	}
	for _, tc := range []struct {
		name, text, want string
		is               error
	}{
		{"empty", "", ":0: file ends before the header", ErrFormat},
		{"only comments", "// x\n// y\n", "file ends before the header", ErrFormat},
		{"random bytes", "\x00\xff\x13garbage,,\n", ":1: header line", ErrFormat},
		{"short header", replaceLine(1, "2,2,2,"), ":1: header line has 3 values", ErrFormat},
		{"zero layers", replaceLine(1, "0,2,2,2,"), "numLayers is 0", ErrFormat},
		{"huge layer size", replaceLine(2, "2,2000000000,2,"), "layer size 1 is 2000000000", ErrFormat},
		{"huge parameter count", strings.Replace(replaceLine(2, "2,60,2,"), "2,2,2,2,", "2,2,2,60,", 1), "more parameters than the file can hold", ErrFormat},
		{"sizes disagree with header", replaceLine(2, "2,2,3,"), "layer sizes run from 2 to 3", ErrFormat},
		{"too few sizes", replaceLine(2, "2,2,"), "2 layer sizes for 2 layers", ErrFormat},
		{"negative size", replaceLine(2, "2,-2,2,"), "layer size 1 is -2", ErrFormat},
		{"short minimums", replaceLine(4, "-1.0,"), ":4: input minimums line has 1 values", ErrFormat},
		{"NaN maximum", replaceLine(5, "1.0,nan,"), ":5: input maximums: value 2", ErrFormat},
		{"inverted bounds", replaceLine(5, "-2.0,4.0,"), "input 1 has minimum -1 > maximum -2", ErrFormat},
		{"zero range", replaceLine(7, "2.0,0.0,8.0,"), ":7: ranges: value 2 is 0", ErrFormat},
		{"infinite mean", replaceLine(6, "inf,2.0,1.0,"), ":6: means: value 1 is +Inf", ErrFormat},
		{"short weight row", replaceLine(8, "1.0,"), ":8: weight row 1 of layer 1 has 1 values, want 2", ErrFormat},
		{"long weight row", replaceLine(8, "1.0,2.0,3.0,"), ":8: weight row 1 of layer 1 has more than 2 values", ErrFormat},
		{"NaN weight", replaceLine(9, "0.5,NaN,"), ":9: weight row 2 of layer 1: value 2 is NaN", nn.ErrNotFinite},
		{"infinite bias", replaceLine(10, "-inf,"), ":10: bias 1 of layer 1: value 1 is -Inf", nn.ErrNotFinite},
		{"overflowing weight", replaceLine(12, "1e400,1.0,"), ":12: weight row 1 of layer 2: value 1 is \"1e400\"", ErrFormat},
		{"not a number", replaceLine(13, "-1.0,abc,"), ":13: weight row 2 of layer 2: value 2 is \"abc\"", ErrFormat},
		{"empty field", replaceLine(13, "-1.0,,"), ":13: weight row 2 of layer 2: value 2 is \"\"", ErrFormat},
		{"truncated", tinyText[:len(tinyText)-7], "file ends before bias 2 of layer 2", ErrFormat},
		{"trailing data", tinyText + "1.0,\n", ":16: unexpected data after the last layer", ErrFormat},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Parse("x.nnet", []byte(tc.text), Options{})
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "nnet: x.nnet") {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			if !errors.Is(err, tc.is) {
				t.Errorf("error %q does not wrap %v", err, tc.is)
			}
		})
	}
}

func TestReadMissing(t *testing.T) {
	if _, _, err := Read("testdata/missing.nnet", Options{}); err == nil || !strings.Contains(err.Error(), "missing.nnet") {
		t.Errorf("err = %v", err)
	}
}

func TestInfoString(t *testing.T) {
	_, info, err := Read("testdata/trap.nnet", Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := info.String()
	for _, want := range []string{
		"format:       NNet, 2 layers (ReLU hidden, affine output)\n",
		"input min:    -1, 0\n",
		"output:       y*8 + 1\n",
		"network:      raw units",
		"note:         means line has 5 values for 2 inputs",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("String() lacks %q:\n%s", want, got)
		}
	}
	if got := vector([]float64{1, 2, 3, 4, 5, 6, 7, 8}); got != "1, 2, 3, 4, 5, 6, ... (8 values)" {
		t.Errorf("vector = %q", got)
	}
	if got := vector([]float64{0, 0, 0}); got != "0 (all 3)" {
		t.Errorf("vector = %q", got)
	}
}
