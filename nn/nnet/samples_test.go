package nnet

import (
	"encoding/json"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nnbound/nnbound/internal/shared/sharedtest"
	"github.com/nnbound/nnbound/nn"
)

// acasSamples is the part of the shared acasxu/samples.json the tests use.
type acasSamples struct {
	Networks map[string]struct {
		InputMin    []float64 `json:"input_min"`
		InputMax    []float64 `json:"input_max"`
		InputMean   []float64 `json:"input_mean"`
		InputRange  []float64 `json:"input_range"`
		OutputMean  float64   `json:"output_mean"`
		OutputRange float64   `json:"output_range"`
		Samples     []struct {
			XRaw  []float64 `json:"x_raw"`
			XNorm []float64 `json:"x_norm"`
			YNorm []float64 `json:"y_norm"`
			YRaw  []float64 `json:"y_raw"`
		}
	}
}

// relErr returns |got - want| / max(|want|, tiny).
func relErr(got, want float64) float64 {
	return math.Abs(got-want) / max(math.Abs(want), 1e-300)
}

func TestACASXuSamples(t *testing.T) {
	dir := sharedtest.Path(t, "data", "networks", "acasxu")
	s := sharedtest.ReadJSON[acasSamples](t, filepath.Join(dir, "samples.json"))
	if len(s.Networks) == 0 {
		t.Fatal("no networks in samples.json")
	}
	for _, name := range slices.Sorted(maps.Keys(s.Networks)) {
		ref := s.Networks[name]
		path := filepath.Join(dir, "nnet", name+".nnet")
		for _, core := range []bool{false, true} {
			net, info, err := Read(path, Options{Core: core})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(info.InputMin, ref.InputMin) || !slices.Equal(info.InputMax, ref.InputMax) ||
				!slices.Equal(info.InputMean, ref.InputMean) || !slices.Equal(info.InputRange, ref.InputRange) {
				t.Errorf("%s: input header %v %v %v %v differs from samples.json", name, info.InputMin, info.InputMax, info.InputMean, info.InputRange)
			}
			if info.OutputMean != ref.OutputMean || info.OutputRange != ref.OutputRange {
				t.Errorf("%s: output mean/range %v/%v, want %v/%v", name, info.OutputMean, info.OutputRange, ref.OutputMean, ref.OutputRange)
			}
			worst := 0.0
			for k, smp := range ref.Samples {
				x, want := smp.XRaw, smp.YRaw
				if core {
					x, want = smp.XNorm, smp.YNorm
				}
				got, err := net.Eval(x)
				if err != nil {
					t.Fatal(err)
				}
				for i := range want {
					e := relErr(got[i], want[i])
					worst = max(worst, e)
					if e > 1e-9 {
						t.Errorf("%s core=%v sample %d output %d: %v, want %v (rel %.3g)", name, core, k, i, got[i], want[i], e)
					}
				}
			}
			t.Logf("%s core=%v: %d layers, worst relative error %.3g", name, core, len(net.Layers), worst)
		}
	}
}

// checkSamples fails t unless net maps every x[k] to want[k] within the
// relative tolerance tol, and returns the worst relative error.
func checkSamples(t *testing.T, name string, net *nn.Network, x, want [][]float64, tol float64) float64 {
	t.Helper()
	worst := 0.0
	for k := range x {
		got, err := net.Eval(x[k])
		if err != nil {
			t.Fatal(err)
		}
		for i := range want[k] {
			e := relErr(got[i], want[k][i])
			worst = max(worst, e)
			if e > tol {
				t.Errorf("%s sample %d output %d: %v, want %v (rel %.3g)", name, k, i, got[i], want[k][i], e)
			}
		}
	}
	return worst
}

// TestHeaderTrapRun2a reads the run2a copy of network 1_1, whose header has
// 7 minimums and 8 means for 5 inputs, and checks it against the samples of
// Marabou's v2a copy (same weights, same normalisation).
func TestHeaderTrapRun2a(t *testing.T) {
	path := sharedtest.Path(t, "data", "benchmarks", "acasxu-f16", "nnet", "ACASXU_run2a_1_1_batch_2000.nnet")
	s := sharedtest.ReadJSON[acasSamples](t, sharedtest.Path(t, "data", "networks", "acasxu", "samples.json"))
	ref := s.Networks["ACASXU_experimental_v2a_1_1"]
	net, info, err := Read(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if info.OutputMean != ref.OutputMean || info.OutputRange != ref.OutputRange {
		t.Fatalf("output mean/range %v/%v, want %v/%v", info.OutputMean, info.OutputRange, ref.OutputMean, ref.OutputRange)
	}
	var x, y [][]float64
	for _, smp := range ref.Samples {
		x, y = append(x, smp.XRaw), append(y, smp.YRaw)
	}
	t.Logf("worst relative error %.3g; notes %q", checkSamples(t, "run2a_1_1", net, x, y, 1e-9), info.Notes)
}

// TestSislAndThirdParty checks sisl's copy of 1_1 (core) and Marabou's
// hand-written fc_2-2-3.nnet.
func TestSislAndThirdParty(t *testing.T) {
	s := sharedtest.ReadJSON[acasSamples](t, sharedtest.Path(t, "data", "networks", "acasxu", "samples.json"))
	ref := s.Networks["ACASXU_experimental_v2a_1_1"]
	net, _, err := Read(sharedtest.Path(t, "data", "networks", "acasxu", "sisl", "TestNetwork2.nnet"), Options{Core: true})
	if err != nil {
		t.Fatal(err)
	}
	var x, y [][]float64
	for _, smp := range ref.Samples {
		x, y = append(x, smp.XNorm), append(y, smp.YNorm)
	}
	checkSamples(t, "TestNetwork2", net, x, y, 1e-9)

	type thirdParty struct {
		Models map[string]json.RawMessage `json:"models"`
	}
	var m struct {
		Inputs  [][]float64 `json:"inputs"`
		Outputs [][]float64 `json:"outputs"`
	}
	dir := sharedtest.Path(t, "data", "networks", "thirdparty")
	tp := sharedtest.ReadJSON[thirdParty](t, filepath.Join(dir, "samples.json"))
	if err := json.Unmarshal(tp.Models["fc_2-2-3.onnx"], &m); err != nil || len(m.Inputs) == 0 {
		t.Fatalf("fc_2-2-3.onnx samples: %v", err)
	}
	net, _, err = Read(filepath.Join(dir, "fc_2-2-3.nnet"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkSamples(t, "fc_2-2-3", net, m.Inputs, m.Outputs, 1e-9)
}

// TestBenchmarkFiles reads the HAR and MNIST benchmark networks, whose
// headers have infinite and FLT_MAX bounds, and checks that the raw network
// equals the core one (identity normalisation, no clipping).
func TestBenchmarkFiles(t *testing.T) {
	for _, p := range [][]string{
		{"data", "benchmarks", "har", "HAR.nnet"},
		{"data", "benchmarks", "mnist", "mnist_relu_3_100.nnet"},
	} {
		path := sharedtest.Path(t, p...)
		raw, info, err := Read(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		core, _, err := Read(path, Options{Core: true})
		if err != nil {
			t.Fatal(err)
		}
		if !nn.Equal(raw, core) {
			t.Errorf("%s: raw network differs from core (notes %q)", p[len(p)-1], info.Notes)
		}
	}
}
