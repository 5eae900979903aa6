package onnx

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestDAG checks the graphs of testdata/dag (made by testdata/gen_dag.py:
// residual joins, concatenations, pools, selections, quantised tensors
// read twice) against its independent float64 evaluator, to 1e-12
// relative, or the error they must give, naming the node.
func TestDAG(t *testing.T) {
	for _, c := range readCases(t, filepath.Join("testdata", "dag", "cases.json")) {
		t.Run(c.File, func(t *testing.T) {
			path := filepath.Join("testdata", "dag", c.File)
			g, info, err := ReadGraph(path)
			if c.Error != "" {
				if !errors.Is(err, sentinels[c.Error]) || !strings.Contains(err.Error(), ": node ") {
					t.Fatalf("%s: got error %v, want %s naming the node", c.Desc, err, c.Error)
				}
				t.Log(err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var samples []sample
			for i, x := range c.Inputs {
				samples = append(samples, sample{x, c.Outputs[i]})
			}
			worst := checkEval(t, "graph", g.Eval, samples, 1e-12)
			t.Logf("%s: %s, worst relative error %.3g", c.Desc, g.Ops(), worst)
			if net, _, err := Read(path); err == nil { // a chain, or a residual the chain reader carries
				checkEval(t, "network", net.Eval, samples, 1e-12)
			}
			if info.Graph != g {
				t.Error("Info.Graph is not the graph read")
			}
		})
	}
}
