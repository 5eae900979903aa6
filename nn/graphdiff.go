package nn

import (
	"fmt"
	"math"
)

// ParamDiffGraph is ParamDiff for graphs: it compares the weights and
// biases of the affine nodes of b with those of a, which must have the
// same nodes with parameters of the same sizes (otherwise the error wraps
// ErrDimension and names the node). Diff.Activations counts the
// activation nodes that differ.
func ParamDiffGraph(a, b *Graph) (Diff, error) {
	if len(a.Nodes) != len(b.Nodes) {
		return Diff{}, fmt.Errorf("nn: graphs have %d and %d nodes: %w", len(a.Nodes), len(b.Nodes), ErrDimension)
	}
	var d Diff
	for k, na := range a.Nodes {
		nb := b.Nodes[k]
		if aa, ok := na.Op.(Act); ok {
			if ab, ok := nb.Op.(Act); !ok || aa != ab {
				d.Activations++
			}
			continue
		}
		fa, ok := na.Op.(*Affine)
		if !ok {
			continue
		}
		fb, ok := nb.Op.(*Affine)
		if !ok || shapeSize(na.Shape) != shapeSize(nb.Shape) || len(fa.Weights()) != len(fb.Weights()) || len(fa.B) != len(fb.B) {
			return Diff{}, fmt.Errorf("nn: %s differs in shape from %s: %w", a.Label(k), b.Label(k), ErrDimension)
		}
		ba, bb := fa.ModelBias(), fb.ModelBias()
		if len(ba) != len(bb) { // one bias per channel in one graph only
			ba, bb = fa.B, fb.B
		}
		for _, pair := range [][2][]float64{{fa.Weights(), fb.Weights()}, {ba, bb}} {
			for i, x := range pair[0] {
				d.add(x, pair[1][i])
			}
		}
	}
	return d, nil
}

// add counts one parameter, x in the original and y in the copy.
func (d *Diff) add(x, y float64) {
	d.Params++
	if x == y {
		return
	}
	d.Changed++
	if y == 0 {
		d.Zeroed++
	}
	e := math.Abs(y - x)
	d.MaxAbs = max(d.MaxAbs, e)
	d.SumAbs += e
}
