package onnx

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/shared"
	"github.com/nnbound/nnbound/internal/shared/sharedtest"
	"github.com/nnbound/nnbound/nn"
)

// Tolerances of the acceptance criteria: relative error against float64
// references for files with DOUBLE weights, and for FLOAT weights.
const (
	tolDouble = 1e-9
	tolFloat  = 1e-6
)

// sample is one input with its reference output.
type sample struct {
	x, y []float64
}

// pairs zips lists of inputs and outputs into samples.
func pairs(xs, ys any) []sample {
	var out []sample
	for i, x := range xs.([]any) {
		out = append(out, sample{shared.Flatten(x), shared.Flatten(ys.([]any)[i])})
	}
	return out
}

// relErr returns max_i |got_i - want_i| / max(1e-3, max_i |want_i|): the
// error relative to the size of the output vector.
func relErr(got, want []float64) float64 {
	scale, worst := 1e-3, 0.0
	for i := range want {
		scale = max(scale, math.Abs(want[i]))
		worst = max(worst, math.Abs(got[i]-want[i]))
	}
	if len(got) != len(want) {
		return math.Inf(1)
	}
	return worst / scale
}

// checkSamples loads the ONNX file, as a network (Read) and as a graph
// (ReadGraph), and checks both against the samples.
func checkSamples(t *testing.T, path string, samples []sample, tol float64) {
	t.Helper()
	g, _, err := ReadGraph(path)
	if err != nil {
		t.Fatalf("ReadGraph: %v", err)
	}
	if len(samples) == 0 {
		t.Fatal("no samples")
	}
	net, info, err := Read(path)
	switch {
	case errors.Is(err, ErrNotChain) && hasJoin(g):
		t.Logf("%s: a graph with joins, no chain (%v)", filepath.Base(path), err)
	case err != nil:
		t.Fatal(err)
	default:
		worst := checkEval(t, "network", net.Eval, samples, tol)
		t.Logf("%s: %s, %d samples, worst relative error %.3g", filepath.Base(path), describe(net, info), len(samples), worst)
	}
	worst := checkEval(t, "graph", g.Eval, samples, tol)
	t.Logf("%s: graph of %s, worst relative error %.3g", filepath.Base(path), g.Ops(), worst)
}

// hasJoin reports whether g has a node reading two values (a residual
// join, a concatenation).
func hasJoin(g *nn.Graph) bool {
	for _, n := range g.Nodes {
		if len(n.Inputs) > 1 {
			return true
		}
	}
	return false
}

// checkEval checks eval against the samples to the relative tolerance tol
// and returns the worst relative error; what names eval in messages.
func checkEval(t *testing.T, what string, eval func([]float64) ([]float64, error), samples []sample, tol float64) float64 {
	t.Helper()
	worst := 0.0
	for i, s := range samples {
		y, err := eval(s.x)
		if err != nil {
			t.Fatalf("%s, sample %d: %v", what, i, err)
		}
		e := relErr(y, s.y)
		worst = max(worst, e)
		if e > tol {
			t.Errorf("%s, sample %d: got %v, want %v (relative error %.3g > %.3g)", what, i, y, s.y, e, tol)
		}
	}
	return worst
}

// describe summarises a loaded network for test logs.
func describe(net *nn.Network, info *Info) string {
	sizes := []string{fmt.Sprint(net.InputSize())}
	for _, l := range net.Layers {
		sizes = append(sizes, fmt.Sprintf("%d %v", l.Out(), l.Act.Kind))
	}
	return fmt.Sprintf("%v %v -> %s", info.InitTypes, info.Input.Shape, strings.Join(sizes, ", "))
}

func TestSharedPaper(t *testing.T) {
	dir := sharedtest.Path(t, "data", "networks", "paper")
	s := sharedtest.ReadJSON[map[string]any](t, filepath.Join(dir, "samples.json"))
	for name, v := range s["networks"].(map[string]any) {
		t.Run(name, func(t *testing.T) {
			checkSamples(t, filepath.Join(dir, name+".onnx"), pairs(s["inputs"], v.(map[string]any)["outputs"]), tolDouble)
		})
	}
}

func TestSharedACASXu(t *testing.T) {
	dir := sharedtest.Path(t, "data", "networks", "acasxu")
	s := sharedtest.ReadJSON[map[string]any](t, filepath.Join(dir, "samples.json"))
	for name, v := range s["networks"].(map[string]any) {
		var core, full []sample
		for _, smp := range v.(map[string]any)["samples"].([]any) {
			m := smp.(map[string]any)
			core = append(core, sample{shared.Flatten(m["x_norm"]), shared.Flatten(m["y_norm"])})
			full = append(full, sample{shared.Flatten(m["x_raw"]), shared.Flatten(m["y_raw"])})
		}
		t.Run(name+"/core", func(t *testing.T) {
			checkSamples(t, filepath.Join(dir, "onnx", name+"_core.onnx"), core, tolDouble)
		})
		t.Run(name+"/full", func(t *testing.T) {
			checkSamples(t, filepath.Join(dir, "onnx", name+"_full.onnx"), full, tolDouble)
		})
		// Marabou's float32 encoding of the normalised network: every
		// parameter must be the float32 rounding of the DOUBLE file's, and
		// the outputs within the deviation the data README measured.
		t.Run(name+"/marabou", func(t *testing.T) {
			path := filepath.Join(dir, "marabou_onnx", name+".onnx")
			requireFloat32Of(t, path, filepath.Join(dir, "onnx", name+"_core.onnx"))
			dev := v.(map[string]any)["max_abs_diff_vs_marabou_onnx_float32"].(float64)
			checkSamplesAbs(t, path, core, 2*dev, true)
		})
		if ref, ok := v.(map[string]any)["sisl_TestNetwork2_onnx_y_raw_float32_model"]; ok {
			// sisl's encoding has no input clipping: samples 0-3 lie inside
			// the input box. The reference evaluates its float32 weights.
			t.Run(name+"/sisl", func(t *testing.T) {
				checkSamples(t, filepath.Join(dir, "sisl", "TestNetwork2.onnx"), pairs(flatSamples(full[:4]), ref), tolFloat)
			})
		}
	}
}

// flatSamples returns the inputs of samples as a JSON-like list.
func flatSamples(s []sample) []any {
	out := make([]any, len(s))
	for i, v := range s {
		row := make([]any, len(v.x))
		for j, x := range v.x {
			row[j] = x
		}
		out[i] = row
	}
	return out
}

// requireFloat32Of fails t unless the network in path32 has the parameters
// of the one in path64 rounded to float32.
func requireFloat32Of(t *testing.T, path32, path64 string) {
	t.Helper()
	n32, _, err := Read(path32)
	if err != nil {
		t.Fatal(err)
	}
	n64, _, err := Read(path64)
	if err != nil {
		t.Fatal(err)
	}
	for k := range n64.Layers {
		for i, b := range n64.Layers[k].B {
			if want := float64(float32(b)); n32.Layers[k].B[i] != want {
				t.Fatalf("layer %d bias %d: %v, want %v", k, i, n32.Layers[k].B[i], want)
			}
			for j, w := range n64.Layers[k].W.RawRowView(i) {
				if want := float64(float32(w)); n32.Layers[k].W.At(i, j) != want {
					t.Fatalf("layer %d weight (%d,%d): %v, want %v", k, i, j, n32.Layers[k].W.At(i, j), want)
				}
			}
		}
	}
}

// checkSamplesAbs checks the graph in path (ReadGraph) and, if chain, the
// network (Read) against samples with an absolute tolerance.
func checkSamplesAbs(t *testing.T, path string, samples []sample, tol float64, chain bool) {
	t.Helper()
	g, _, err := ReadGraph(path)
	if err != nil {
		t.Fatal(err)
	}
	evals := []func([]float64) ([]float64, error){g.Eval}
	if chain {
		net, _, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		evals = append(evals, net.Eval)
	}
	for i, s := range samples {
		for _, eval := range evals {
			y, err := eval(s.x)
			if err != nil {
				t.Fatal(err)
			}
			for j := range y {
				if math.Abs(y[j]-s.y[j]) > tol {
					t.Errorf("sample %d output %d: got %v, want %v within %.3g", i, j, y[j], s.y[j], tol)
				}
			}
		}
	}
}

func TestSharedThirdParty(t *testing.T) {
	dir := sharedtest.Path(t, "data", "networks", "thirdparty")
	s := sharedtest.ReadJSON[map[string]any](t, filepath.Join(dir, "samples.json"))
	for name, v := range s["models"].(map[string]any) {
		m := v.(map[string]any)
		t.Run(name, func(t *testing.T) {
			checkSamples(t, filepath.Join(dir, name), pairs(m["inputs"], m["outputs"]), tolFloat)
		})
	}
}

func TestSharedTorch(t *testing.T) {
	checkTorchDir(t, sharedtest.Path(t, "data", "networks", "torch"), tolFloat)
}

// checkTorchDir checks every model folder of dir (the layout of the shared
// torch folder) against its samples.json, to the relative tolerance tol.
func checkTorchDir(t *testing.T, dir string, tol float64) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			s := sharedtest.ReadJSON[map[string]any](t, filepath.Join(dir, e.Name(), "samples.json"))
			checkSamples(t, filepath.Join(dir, e.Name(), s["model"].(string)),
				pairs(s["inputs"], s["outputs_onnx_float64"]), tol)
		})
	}
}
