package onnx

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/internal/shared/sharedtest"
)

// graphReference is the part of a testdata/graphs/<model>.json file (at
// the repository root: models with residual joins, concatenations, pools
// and int8 QDQ layouts, and the outputs of an independent numpy
// evaluator) that the tests read.
type graphReference struct {
	Model          string
	Inputs         [][]float64
	OutputsFloat64 [][]float64 `json:"outputs_float64"`
	OutputsFloat32 [][]float64 `json:"outputs_float32"`
	OutputScale    float64     `json:"output_scale"`
	OutputZero     float64     `json:"output_zero_point"`
	LevelsTorch    [][]float64 `json:"output_levels_torch_int8"`
	MaxStepsTorch  struct {
		MaxSteps int `json:"max_steps"`
	} `json:"test_set_levels_torch_int8_vs_float32"`
}

// TestRepoGraphs reads every model of testdata/graphs with ReadGraph and
// checks it against the float64 reference to 1e-9 relative (int8 QDQ
// models to 1e-12, that is every output level the same), against the
// float32 reference bit for bit where there is one (QDQ models,
// Graph.EvalFloat32), and an int8 model exported by PyTorch against
// torch's own int8 kernels within the output steps they differ by on the
// test set.
func TestRepoGraphs(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "graphs")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || name == "digits_test" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			ref := sharedtest.ReadJSON[graphReference](t, filepath.Join(dir, e.Name()))
			g, _, err := ReadGraph(filepath.Join(dir, name+".onnx"))
			if err != nil {
				t.Fatal(err)
			}
			tol := 1e-9
			if ref.OutputScale > 0 {
				tol = 1e-12
			}
			var samples []sample
			for i, x := range ref.Inputs {
				samples = append(samples, sample{x, ref.OutputsFloat64[i]})
			}
			worst := checkEval(t, "graph", g.Eval, samples, tol)
			t.Logf("%s: worst relative error %.3g", g.Ops(), worst)
			for i, x := range ref.Inputs[:len(ref.OutputsFloat32)] {
				y, err := g.EvalFloat32(x)
				if err != nil {
					t.Fatal(err)
				}
				for j, v := range y {
					if v != ref.OutputsFloat32[i][j] {
						t.Errorf("float32, input %d output %d: %v, reference %v", i, j, v, ref.OutputsFloat32[i][j])
					}
				}
			}
			if ref.LevelsTorch == nil {
				return
			}
			differ := 0
			for i, x := range ref.Inputs {
				y, _ := g.Eval(x)
				for j, v := range y {
					d := math.Abs(math.Round(v/ref.OutputScale+ref.OutputZero) - ref.LevelsTorch[i][j])
					if d > float64(ref.MaxStepsTorch.MaxSteps) {
						t.Errorf("input %d output %d: level %v steps from torch's int8 kernels", i, j, d)
					}
					if d > 0 {
						differ++
					}
				}
			}
			t.Logf("%d of %d output levels differ from torch's int8 kernels (by at most %d steps on the test set)",
				differ, len(ref.Inputs)*len(ref.OutputsFloat64[0]), ref.MaxStepsTorch.MaxSteps)
		})
	}
}
