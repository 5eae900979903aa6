package modelfile

import (
	"encoding/json"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nnbound/nnbound/internal/shared"
	"github.com/nnbound/nnbound/internal/shared/sharedtest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
)

// sampleCase is one model file with reference input/output pairs.
type sampleCase struct {
	file string // relative to data/networks
	core bool
	x, y [][]float64
	// tol bounds |got - want| / |want| (relErr); absTol, when set, bounds
	// |got - want| instead (references computed from other weights).
	tol, absTol float64
}

// rows returns each element of a JSON array of samples, flattened.
func rows(raw json.RawMessage) [][]float64 {
	var v []any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil
	}
	out := make([][]float64, len(v))
	for i, e := range v {
		out[i] = shared.Flatten(e)
	}
	return out
}

func sub(t *testing.T, raw json.RawMessage) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// paperCases: the paper's networks, as JSON and ONNX (float64).
func paperCases(t *testing.T, dir string) []sampleCase {
	s := sharedtest.ReadJSON[map[string]json.RawMessage](t, filepath.Join(dir, "paper", "samples.json"))
	x := rows(s["inputs"])
	var cases []sampleCase
	nets := sub(t, s["networks"])
	for _, name := range slices.Sorted(maps.Keys(nets)) {
		y := rows(sub(t, nets[name])["outputs"])
		for _, ext := range []string{".json", ".onnx"} {
			cases = append(cases, sampleCase{file: filepath.Join("paper", name+ext), x: x, y: y, tol: 1e-9})
		}
	}
	return cases
}

// acasCases: the ACAS Xu networks as NNet (raw and core), our ONNX
// conversions (float64), Marabou's and sisl's ONNX (float32).
func acasCases(t *testing.T, dir string) []sampleCase {
	s := sub(t, sharedtest.ReadJSON[map[string]json.RawMessage](t, filepath.Join(dir, "acasxu", "samples.json"))["networks"])
	var cases []sampleCase
	for _, name := range slices.Sorted(maps.Keys(s)) {
		n := sub(t, s[name])
		var smp []struct {
			XRaw  []float64 `json:"x_raw"`
			XNorm []float64 `json:"x_norm"`
			YRaw  []float64 `json:"y_raw"`
			YNorm []float64 `json:"y_norm"`
		}
		if err := json.Unmarshal(n["samples"], &smp); err != nil {
			t.Fatal(err)
		}
		var xr, xn, yr, yn [][]float64
		for _, p := range smp {
			xr, xn = append(xr, p.XRaw), append(xn, p.XNorm)
			yr, yn = append(yr, p.YRaw), append(yn, p.YNorm)
		}
		var marabou float64
		if err := json.Unmarshal(n["max_abs_diff_vs_marabou_onnx_float32"], &marabou); err != nil {
			t.Fatal(err)
		}
		cases = append(cases,
			sampleCase{file: filepath.Join("acasxu", "nnet", name+".nnet"), x: xr, y: yr, tol: 1e-9},
			sampleCase{file: filepath.Join("acasxu", "nnet", name+".nnet"), core: true, x: xn, y: yn, tol: 1e-9},
			sampleCase{file: filepath.Join("acasxu", "onnx", name+"_core.onnx"), x: xn, y: yn, tol: 1e-9},
			sampleCase{file: filepath.Join("acasxu", "onnx", name+"_full.onnx"), x: xr, y: yr, tol: 1e-9},
			// Float32 weights against references from the decimal weights:
			// the samples file bounds the difference.
			sampleCase{file: filepath.Join("acasxu", "marabou_onnx", name+".onnx"), x: xn, y: yn, absTol: 2 * marabou},
		)
		if sisl, ok := n["sisl_TestNetwork2_onnx_y_raw_float32_model"]; ok {
			cases = append(cases,
				sampleCase{file: filepath.Join("acasxu", "sisl", "TestNetwork2.nnet"), core: true, x: xn, y: yn, tol: 1e-9},
				// sisl's ONNX has no clipping: only samples 0-3 lie in the box.
				sampleCase{file: filepath.Join("acasxu", "sisl", "TestNetwork2.onnx"), x: xr[:4], y: rows(sisl)[:4], tol: 1e-6},
			)
		}
	}
	return cases
}

// thirdPartyCases: Marabou's ONNX files and fc_2-2-3.nnet (float32 weights
// evaluated in float64 by the reference).
func thirdPartyCases(t *testing.T, dir string) []sampleCase {
	m := sub(t, sharedtest.ReadJSON[map[string]json.RawMessage](t, filepath.Join(dir, "thirdparty", "samples.json"))["models"])
	var cases []sampleCase
	for _, name := range slices.Sorted(maps.Keys(m)) {
		s := sub(t, m[name])
		c := sampleCase{file: filepath.Join("thirdparty", name), x: rows(s["inputs"]), y: rows(s["outputs"]), tol: 1e-9}
		cases = append(cases, c)
		if name == "fc_2-2-3.onnx" {
			c.file = filepath.Join("thirdparty", "fc_2-2-3.nnet")
			cases = append(cases, c)
		}
	}
	return cases
}

// torchCases: the PyTorch exports (float32 weights; float64 references).
func torchCases(t *testing.T, dir string) []sampleCase {
	var cases []sampleCase
	entries, err := os.ReadDir(filepath.Join(dir, "torch"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		s := sharedtest.ReadJSON[map[string]json.RawMessage](t, filepath.Join(dir, "torch", e.Name(), "samples.json"))
		cases = append(cases, sampleCase{
			file: filepath.Join("torch", e.Name(), e.Name()+".onnx"),
			x:    rows(s["inputs"]), y: rows(s["outputs_onnx_float64"]), tol: 1e-9,
		})
	}
	return cases
}

// TestSharedSamples loads every network of the shared folder and checks
// that it reproduces every sample of its samples.json.
func TestSharedSamples(t *testing.T) {
	dir := sharedtest.Path(t, "data", "networks")
	var cases []sampleCase
	for _, f := range []func(*testing.T, string) []sampleCase{paperCases, acasCases, thirdPartyCases, torchCases} {
		cases = append(cases, f(t, dir)...)
	}
	checked := 0
	for _, c := range cases {
		name := c.file
		if c.core {
			name += " --core"
		}
		net, _, err := Load(filepath.Join(dir, c.file), Options{Core: c.core})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(c.x) == 0 || len(c.x) != len(c.y) {
			t.Errorf("%s: %d inputs, %d outputs in the samples", name, len(c.x), len(c.y))
			continue
		}
		worst := 0.0
		for k := range c.x {
			got, err := net.Eval(c.x[k])
			if err != nil {
				t.Errorf("%s sample %d: %v", name, k, err)
				break
			}
			for i, want := range c.y[k] {
				e := math.Abs(got[i] - want)
				bound := c.absTol
				if bound == 0 {
					e /= max(math.Abs(want), 1e-300)
					bound = c.tol
				}
				worst = max(worst, e)
				if e > bound {
					t.Errorf("%s sample %d output %d: %v, want %v (error %.3g > %.3g)", name, k, i, got[i], want, e, bound)
				}
			}
		}
		t.Logf("%-58s %d samples, worst %s %.2g", name, len(c.x), map[bool]string{true: "abs", false: "rel"}[c.absTol > 0], worst)
		checked++
	}
	t.Logf("%d model files checked", checked)
	if checked != len(cases) {
		t.Fatalf("%d of %d model files checked", checked, len(cases))
	}
}

// TestTransformFloat16RawUnits checks that quantising an NNet network read
// in raw units compresses only its core: the result equals the raw-units
// reading of the exact float16 copy (same header), bit for bit.
func TestTransformFloat16RawUnits(t *testing.T) {
	dir := sharedtest.Path(t, "data", "benchmarks", "acasxu-f16")
	_, info, err := Load(filepath.Join(dir, "nnet", "ACASXU_run2a_4_2_batch_2000.nnet"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := info.Transform(quantise.Float16)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := Load(filepath.Join(dir, "compressed_nnets_f16exact", "ACASXU_run2a_4_2_batch_2000_16bit.nnet"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !nn.Equal(got, want) {
		t.Error("float16 of the raw-units network differs from the raw-units float16 copy")
	}
}
