package onnx

import (
	"path/filepath"
	"testing"
)

// TestGraphFloat32QDQ checks the graph's float32 evaluation against the
// float32 reference outputs of the PyTorch int8 exports of testdata/qdq:
// each operation's float64 result rounded to float32 lands on the same
// re-quantised values as the reference's float32 sums.
func TestGraphFloat32QDQ(t *testing.T) {
	for _, name := range qdqModels {
		s := readQDQSamples(t, name)
		for scheme, m := range s.Models {
			t.Run(name+"/"+scheme, func(t *testing.T) {
				net, _, err := Read(filepath.Join("testdata", "qdq", name, m.File))
				if err != nil {
					t.Fatal(err)
				}
				g := net.Graph()
				for i, x := range s.Inputs {
					y, err := g.EvalFloat32(x)
					if err != nil {
						t.Fatal(err)
					}
					for j := range y {
						if y[j] != m.OutputsQDQ32[i][j] {
							t.Errorf("input %d output %d: float32 %v, reference %v", i, j, y[j], m.OutputsQDQ32[i][j])
						}
					}
				}
			})
		}
	}
}
