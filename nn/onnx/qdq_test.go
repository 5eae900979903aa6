package onnx

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// qdqSamples is the part of testdata/qdq/*/samples.json the tests read.
type qdqSamples struct {
	Inputs         [][]float64
	OutputsFloat64 [][]float64 `json:"outputs_float64"`
	Models         map[string]struct {
		File          string
		OutputsQDQ32  [][]float64 `json:"outputs_qdq_float32"`
		OutputsQDQ64  [][]float64 `json:"outputs_qdq_float64"`
		MaxAbsSampled float64     `json:"max_abs_int8_vs_float_sampled"`
	}
}

// qdqModels lists the PyTorch int8 exports of testdata/qdq (see its README).
var qdqModels = []string{"sin3x_relu", "digits_relu", "controller_relu"}

// readQDQSamples reads testdata/qdq/name/samples.json.
func readQDQSamples(t *testing.T, name string) qdqSamples {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "qdq", name, "samples.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s qdqSamples
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestQDQSamples checks that every int8 model of testdata/qdq reproduces the
// reference QDQ outputs: bit for bit in float32, to 1e-12 relative in
// float64.
func TestQDQSamples(t *testing.T) {
	for _, name := range qdqModels {
		s := readQDQSamples(t, name)
		for scheme, m := range s.Models {
			t.Run(name+"/"+scheme, func(t *testing.T) {
				net, _, err := Read(filepath.Join("testdata", "qdq", name, m.File))
				if err != nil {
					t.Fatal(err)
				}
				if !net.Quantised() || net.Input == nil {
					t.Fatal("the network has no quantisers")
				}
				for i, x := range s.Inputs {
					y32, err := net.EvalFloat32(x)
					if err != nil {
						t.Fatal(err)
					}
					y64, _ := net.Eval(x)
					for j := range y32 {
						if y32[j] != m.OutputsQDQ32[i][j] {
							t.Errorf("input %d output %d: float32 %v, reference %v", i, j, y32[j], m.OutputsQDQ32[i][j])
						}
						want := m.OutputsQDQ64[i][j]
						if math.Abs(y64[j]-want) > 1e-12*max(math.Abs(want), 1e-300) {
							t.Errorf("input %d output %d: float64 %v, reference %v", i, j, y64[j], want)
						}
					}
				}
			})
		}
	}
}

// TestQDQBadInput checks that malformed and unsupported QDQ graphs (made by
// testdata/qdq/gen_bad.py) give one clear error each.
func TestQDQBadInput(t *testing.T) {
	for _, c := range []struct {
		file, want string
		err        error
	}{
		{"zero_scale", "scale 0 is 0, want positive and finite", ErrMalformed},
		{"negative_scale", "scale 0 is -0.5, want positive and finite", ErrMalformed},
		{"zero_point_range", "value 0 is 300, outside the UINT8 range [0, 255]", ErrMalformed},
		{"qlinearmatmul", `operator "QLinearMatMul" (integer kernels are not read`, ErrUnsupportedOp},
	} {
		t.Run(c.file, func(t *testing.T) {
			_, _, err := Read(filepath.Join("testdata", "qdq", "bad", c.file+".onnx"))
			if !errors.Is(err, c.err) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want one line with %q wrapping %v", err, c.want, c.err)
			}
			t.Log(err)
		})
	}
}

// TestQDQRoundTrip checks that the int8 models of testdata/qdq keep their
// integer schemes and come back bit for bit through Write.
func TestQDQRoundTrip(t *testing.T) {
	for _, name := range qdqModels {
		for _, scheme := range []string{"perchannel", "pertensor"} {
			net, _, err := Read(filepath.Join("testdata", "qdq", name, name+"_int8_"+scheme+".onnx"))
			if err != nil {
				t.Fatal(err)
			}
			for k, l := range net.Layers {
				if l.Int == nil || l.Pre == nil || (l.Int.Weight.Len() > 1) != (scheme == "perchannel" && l.Out() > 1) {
					t.Fatalf("%s %s layer %d: scheme %+v, pre %+v", name, scheme, k, l.Int, l.Pre)
				}
			}
			again, _, _ := roundTrip(t, net)
			requireIdentical(t, again, net)
		}
	}
}

// TestQDQWriteInt8 checks that the int8 copies quantise.Int8 makes of the
// float models of testdata/qdq (both schemes, both activation kinds) are
// written and read back bit for bit.
func TestQDQWriteInt8(t *testing.T) {
	for _, name := range qdqModels {
		net, _, err := Read(filepath.Join("testdata", "qdq", name, name+".onnx"))
		if err != nil {
			t.Fatal(err)
		}
		s := readQDQSamples(t, name)
		r, err := quantise.SampleRanges(net, s.Inputs)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []quantise.Int8Options{{Bits: 8}, {Bits: 8, PerChannel: true, Symmetric: true}} {
			q, err := quantise.Int8(net, r, o)
			if err != nil {
				t.Fatal(err)
			}
			again, _, _ := roundTrip(t, q)
			requireIdentical(t, again, q)
		}
	}
}

// TestQDQInt8Accuracy checks that the int8 copies of the digits model
// (calibrated on the box [0, 1]^64 by bound propagation, per-tensor and
// per-channel) keep the test accuracy within 1% of the float model's.
func TestQDQInt8Accuracy(t *testing.T) {
	dir := filepath.Join("testdata", "qdq", "digits_relu")
	net, _, err := Read(filepath.Join(dir, "digits_relu.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "test_set.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ts struct {
		Inputs [][]float64
		Labels []int
	}
	if err := json.Unmarshal(data, &ts); err != nil {
		t.Fatal(err)
	}
	accuracy := func(f *nn.Network) float64 {
		right := 0
		for i, x := range ts.Inputs {
			y, _ := f.Eval(x)
			if argmax(y) == ts.Labels[i] {
				right++
			}
		}
		return float64(right) / float64(len(ts.Inputs))
	}
	box := spec.Box{Lo: make([]float64, 64), Hi: slices.Repeat([]float64{1}, 64)}
	r, err := bounds.Calibrate(net, box, bounds.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	a := accuracy(net)
	for _, pc := range []bool{false, true} {
		q, err := quantise.Int8(net, r, quantise.Int8Options{Bits: 8, PerChannel: pc})
		if err != nil {
			t.Fatal(err)
		}
		aq := accuracy(q)
		t.Logf("per-channel %v: accuracy %.4f, float %.4f (%d images)", pc, aq, a, len(ts.Inputs))
		if aq < a-0.01 {
			t.Errorf("per-channel %v: accuracy %.4f, float %.4f", pc, aq, a)
		}
	}
}

// argmax returns the index of the largest value of y.
func argmax(y []float64) int {
	best := 0
	for j := range y {
		if y[j] > y[best] {
			best = j
		}
	}
	return best
}

// TestORTResidual checks a residual CNN in the ONNX Runtime QDQ layout
// (testdata/qdq/ort_residual: int8 weights dequantised per output channel,
// int32 biases, quantisers inside the residual branch, a quantised tensor
// read by two nodes) against the ONNX reference semantics: ReadGraph must
// read it and evaluate as they say, and Read, for chains, must refuse it.
func TestORTResidual(t *testing.T) {
	dir := filepath.Join("testdata", "qdq", "ort_residual")
	path := filepath.Join(dir, "ort_residual.onnx")
	var s struct {
		Inputs  [][]float64
		Outputs [][]float64 `json:"outputs_qdq_float64"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "samples.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Read(path); err == nil {
		t.Error("Read of a residual graph gave a network, want an error")
	}
	var samples []sample
	for i, x := range s.Inputs {
		samples = append(samples, sample{x, s.Outputs[i]})
	}
	checkSamplesAbs(t, path, samples, 1e-12, false)
	g, _, _ := ReadGraph(path)
	t.Log(g.Ops())
}
