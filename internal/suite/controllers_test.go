package suite

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/nn/onnx"
)

// TestControllerModels reads every model of testdata/controllers and
// checks it against the outputs its generate.py recorded: the float64
// torch outputs of the tanh controllers and float MLPs, and the QDQ
// reference outputs (float64) of the int8 copies.
func TestControllerModels(t *testing.T) {
	root := filepath.Join("..", "..")
	o := DefaultControllersOptions()
	var paths []string
	for _, p := range append(o.Tanh, o.Int8...) {
		if strings.Contains(p, "controllers") {
			paths = append(paths, filepath.Join(root, p))
		}
	}
	if len(paths) != 7 {
		t.Fatalf("%d models of testdata/controllers, want 7", len(paths))
	}
	for _, path := range paths {
		var s struct {
			Inputs  [][]float64 `json:"inputs"`
			Float64 [][]float64 `json:"outputs_float64"`
			Models  map[string]struct {
				File string      `json:"file"`
				QDQ  [][]float64 `json:"outputs_qdq_float64"`
			} `json:"models"`
		}
		data, err := os.ReadFile(filepath.Join(filepath.Dir(path), "samples.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		check := func(file string, want [][]float64) {
			f, _, err := onnx.Read(filepath.Join(filepath.Dir(path), file))
			if err != nil {
				t.Fatal(err)
			}
			if len(want) != len(s.Inputs) || len(want) == 0 {
				t.Fatalf("%s: %d outputs for %d inputs", file, len(want), len(s.Inputs))
			}
			for i, x := range s.Inputs {
				y, err := f.Eval(x)
				if err != nil {
					t.Fatal(err)
				}
				for k := range y {
					if math.Abs(y[k]-want[i][k]) > 1e-9 {
						t.Errorf("%s input %d output %d: %.12g, want %.12g", file, i, k, y[k], want[i][k])
					}
				}
			}
		}
		check(filepath.Base(path), s.Float64)
		for _, m := range s.Models {
			check(m.File, m.QDQ)
		}
	}
}

// TestControllersTable runs bench controllers on one tanh controller and
// one int8 pair, with no time budget, and checks their rows: by bound
// propagation alone, or, with NNBOUND_LONG=1, by the default method with a
// cap of pieces (the int8 pair's SDP and its cut rounds took 28 of the
// 40 CPU seconds).
func TestControllersTable(t *testing.T) {
	root := filepath.Join("..", "..")
	o := DefaultControllersOptions()
	o.Tanh, o.Int8, o.Schemes = []string{filepath.Join(root, o.Tanh[1])}, []string{filepath.Join(root, o.Int8[1])}, []string{"pertensor"}
	o.Certify.Refine.MaxPieces, o.Certify.Refine.TimeBudget = 4, 0
	if os.Getenv("NNBOUND_LONG") != "1" {
		o.Certify.Method = certify.MethodPropagation
	}
	o.Certify.SearchWork /= 100 // the table's rows, not the search, are under test
	var out bytes.Buffer
	if err := Controllers(context.Background(), &out, &o); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| tanh | tanh4a | FB 8 | 4 |", "| int8 | mlp5 | pertensor | 5 |", "| tanh | 1 |", "| int8 | 1 |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
}
