package jsonnet

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/shared/sharedtest"
	"github.com/nnbound/nnbound/nn"
)

// activationsNet evaluates testdata/activations.json by hand.
func activationsNet(x []float64) float64 {
	leaky := func(s float64) float64 {
		if s < 0 {
			return 0.25 * s
		}
		return s
	}
	elu := func(s float64) float64 {
		if s < 0 {
			return 2 * math.Expm1(s)
		}
		return s
	}
	clip := func(s float64) float64 { return min(max(s, -0.5), 2) }
	h := []float64{
		clip(leaky(x[0] - x[1])),
		clip(leaky(0.5*x[0] + 0.25*x[1] - 0.5)),
		clip(leaky(-2*x[0] + x[1] + 0.125)),
	}
	g0 := elu(h[0] + h[1] + h[2] - 1)
	g1 := elu(h[0] - h[1] + 0.5*h[2])
	return g0 + 2*g1 + 0.5
}

func TestActivations(t *testing.T) {
	net, err := Read("testdata/activations.json")
	if err != nil {
		t.Fatal(err)
	}
	want := []nn.Activation{
		{Kind: nn.LeakyReLU, Alpha: 0.25}, {Kind: nn.HardTanh, Lo: -0.5, Hi: 2},
		{Kind: nn.ELU, Alpha: 2}, {Kind: nn.Identity},
	}
	for k, l := range net.Layers {
		if l.Act != want[k] {
			t.Errorf("layer %d activation %+v, want %+v", k, l.Act, want[k])
		}
	}
	for _, x := range [][]float64{{0, 0}, {1, -1}, {-3, 2}, {0.7, 5}, {-0.1, -0.2}} {
		got, err := net.Eval(x)
		if err != nil {
			t.Fatal(err)
		}
		if w := activationsNet(x); math.Abs(got[0]-w) > 1e-15*max(1, math.Abs(w)) {
			t.Errorf("f(%v) = %v, want %v", x, got[0], w)
		}
	}
}

func TestDefaults(t *testing.T) {
	for _, tc := range []struct {
		act  string
		want nn.Activation
	}{
		{`"leaky_relu"`, nn.Activation{Kind: nn.LeakyReLU, Alpha: 0.01}},
		{`"elu"`, nn.Activation{Kind: nn.ELU, Alpha: 1}},
		{`"hardtanh"`, nn.Activation{Kind: nn.HardTanh, Lo: -1, Hi: 1}},
		{`"identity"`, nn.Activation{Kind: nn.Identity}},
		{`"sigmoid"`, nn.Activation{Kind: nn.Sigmoid}},
		{`"tanh"`, nn.Activation{Kind: nn.Tanh}},
	} {
		net, err := Parse("x.json", []byte(`{"layers":[{"weight":[[1]],"bias":[0],"activation":`+tc.act+`}]}`))
		if err != nil {
			t.Fatalf("%s: %v", tc.act, err)
		}
		if got := net.Layers[0].Act; got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.act, got, tc.want)
		}
	}
}

// TestRoundTrip writes networks with awkward values and reads them back.
func TestRoundTrip(t *testing.T) {
	net, err := Read("testdata/activations.json")
	if err != nil {
		t.Fatal(err)
	}
	net.Layers[0].W.Set(0, 0, 0.1)
	net.Layers[0].W.Set(0, 1, math.Copysign(0, -1))
	net.Layers[0].W.Set(1, 0, 5e-324)
	net.Layers[0].W.Set(1, 1, math.MaxFloat64)
	net.Layers[0].W.Set(2, 0, 1.0/3)
	net.Layers[2].B[1] = -123456789012345678
	var buf bytes.Buffer
	if err := Write(&buf, net); err != nil {
		t.Fatal(err)
	}
	back, err := Parse("buf", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !nn.Equal(net, back) {
		t.Error("network changed in the round trip")
	}
	if !math.Signbit(back.Layers[0].W.At(0, 1)) {
		t.Error("-0 lost its sign")
	}
	var again bytes.Buffer
	if err := Write(&again, back); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Error("second write differs from the first")
	}
}

// TestPaperFilesRoundTrip checks that Write reproduces the paper's JSON
// files byte for byte.
func TestPaperFilesRoundTrip(t *testing.T) {
	dir := sharedtest.Path(t, "data", "networks", "paper")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range files {
		if filepath.Base(p) == "samples.json" {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		net, err := Parse(p, data)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, net); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), data) {
			t.Errorf("%s: written file differs from the original", filepath.Base(p))
		}
		n++
	}
	if n != 12 {
		t.Errorf("read %d paper networks, want 12", n)
	}
}

func TestParseErrors(t *testing.T) {
	layer := func(s string) string { return `{"layers":[` + s + `]}` }
	for _, tc := range []struct {
		name, text, want string
		is               error
	}{
		{"empty", "", "EOF", ErrFormat},
		{"random bytes", "\x00\xff\x13", ":1:1: ", ErrFormat},
		{"syntax error line", "{\n \"layers\": [\n  {,\n", ":3:4: ", ErrFormat},
		{"truncated", `{"layers":[{"weight":[[1,2],[3`, "unexpected EOF", ErrFormat},
		{"no layers", `{"layers":[]}`, "no layers", nn.ErrDimension},
		{"not an object", `[1,2]`, "cannot unmarshal", ErrFormat},
		{"unknown field", layer(`{"weight":[[1]],"bias":[0],"activation":"relu","bais":[1]}`), "unknown field", ErrFormat},
		{"trailing data", `{"layers":[{"weight":[[1]],"bias":[0],"activation":"relu"}]} {}`, "data after the network", ErrFormat},
		{"ragged rows", layer(`{"weight":[[1,2],[3]],"bias":[0,0],"activation":"relu"}`), "layer 0: weight row 1 has 1 values", nn.ErrDimension},
		{"no rows", layer(`{"weight":[],"bias":[],"activation":"relu"}`), "layer 0: no weight rows", nn.ErrDimension},
		{"empty row", layer(`{"weight":[[]],"bias":[0],"activation":"relu"}`), "weight row 0 is empty", nn.ErrDimension},
		{"short bias", layer(`{"weight":[[1],[2]],"bias":[0],"activation":"relu"}`), "1 biases for 2 weight rows", nn.ErrDimension},
		{"layers do not chain", layer(`{"weight":[[1,2]],"bias":[0],"activation":"relu"},{"weight":[[1,2]],"bias":[0],"activation":"linear"}`), "layer 1 takes 2 inputs", nn.ErrDimension},
		{"null weight", layer(`{"weight":[[1,null]],"bias":[0],"activation":"relu"}`), "null is not a number", ErrFormat},
		{"NaN string", layer(`{"weight":[["NaN"]],"bias":[0],"activation":"relu"}`), "is not a number", ErrFormat},
		{"NaN bare", layer(`{"weight":[[NaN]],"bias":[0],"activation":"relu"}`), "invalid character", ErrFormat},
		{"overflow", layer(`{"weight":[[1e400]],"bias":[0],"activation":"relu"}`), "1e400 is not a number in the float64 range", ErrFormat},
		{"no activation", layer(`{"weight":[[1]],"bias":[0]}`), "no activation", ErrFormat},
		{"unknown activation", layer(`{"weight":[[1]],"bias":[0],"activation":"softmax"}`), `unknown activation "softmax"`, ErrFormat},
		{"stray parameter", layer(`{"weight":[[1]],"bias":[0],"activation":"relu","alpha":0.1}`), "takes no such parameter", ErrFormat},
		{"inverted hardtanh", layer(`{"weight":[[1]],"bias":[0],"activation":"hardtanh","lo":1,"hi":-1}`), "hardtanh bounds inverted", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.json", []byte(tc.text))
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "jsonnet: x.json") {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %q does not wrap %v", err, tc.is)
			}
		})
	}
}

func TestWriteInvalid(t *testing.T) {
	net, err := Read("testdata/activations.json")
	if err != nil {
		t.Fatal(err)
	}
	net.Layers[1].B[0] = math.NaN()
	if err := Write(&bytes.Buffer{}, net); !errors.Is(err, nn.ErrNotFinite) {
		t.Errorf("err = %v, want ErrNotFinite", err)
	}
}
