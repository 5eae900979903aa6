package onnx

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/nn"
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

// TestChainOf checks that ChainOf gives the chain Read gives, layer for
// layer, and leaves the graph as it was.
func TestChainOf(t *testing.T) {
	for _, path := range []string{
		filepath.Join("testdata", "cnn", "cnn_avgpool", "cnn_avgpool.onnx"),
		filepath.Join("testdata", "cnn", "cnn_mnist28", "cnn_mnist28.onnx"),
		filepath.Join("testdata", "qdq", "digits_relu", "digits_relu_int8_perchannel.onnx"),
		filepath.Join("testdata", "graphs", "minmax_vector.onnx"),
	} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			net, _, err := Read(path)
			if err != nil {
				t.Fatal(err)
			}
			g, _, err := ReadGraph(path)
			if err != nil {
				t.Fatal(err)
			}
			before := g.Ops()
			chain, err := ChainOf(g)
			if err != nil {
				t.Fatal(err)
			}
			if !nn.Equal(chain, net) {
				t.Error("ChainOf differs from Read")
			}
			if g.Ops() != before {
				t.Errorf("ChainOf changed the graph: %s, was %s", g.Ops(), before)
			}
		})
	}
}
