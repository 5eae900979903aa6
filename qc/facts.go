package qc

import (
	"fmt"
	"math"

	"github.com/nnbound/nnbound/bounds"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// Fact is a linear form F of eta that is nonnegative at every point of the
// region: a side of a box, of a ReLU or of the triangle relaxation. The
// product of two facts is a valid quadratic constraint (Product).
type Fact struct {
	F     Form
	Where string
}

// Facts returns the linear facts of layout l on a region whose inputs x1
// lie in box and whose pre-activations lie in pre[n][k][i]
// (bounds.Net.Pre, which encloses xi = v + e for a layer with noise):
//
//	x - lo >= 0,  hi - x >= 0                  every free input of x1
//	xi - l >= 0,  u - xi >= 0                  every neuron with finite bounds
//	phi >= 0,  phi - xi >= 0                   every kept ReLU neuron
//	u (xi - l) - (u - l) phi >= 0              the same with l < 0 < u (ReLUTriangle)
//	phi - lo >= 0,  hi - phi >= 0              every kept hard-tanh neuron
//
// Their pairwise products (a^T eta)(b^T eta) >= 0 are the reformulation-
// linearisation cuts of the S-procedure: the default terms hold the
// products of the sides of one neuron (PreBox, TriangleProduct, the
// complementarity), these tie different neurons and inputs together.
// There are O(neurons^2) of them: a caller adds those its relaxation
// violates (certify's cut rounds).
func Facts(l *Layout, box spec.Box, pre [2][][]bounds.Interval) []Fact {
	var fs []Fact
	side := func(f Form, lo, hi float64, where string) {
		if !math.IsInf(lo, 0) && !math.IsNaN(lo) {
			fs = append(fs, Fact{Sub(f, l.OneForm(lo)), where + ">=lo"})
		}
		if !math.IsInf(hi, 0) && !math.IsNaN(hi) {
			fs = append(fs, Fact{Sub(l.OneForm(hi), f), where + "<=hi"})
		}
	}
	for i, x := range l.X1 {
		if l.Inputs1[i].Mode == InputFree {
			side(x, box.Lo[i], box.Hi[i], fmt.Sprintf("x1[%d]", i))
		}
	}
	for n := range 2 {
		for k := range l.Nets[n].Layers {
			lay := &l.Nets[n].Layers[k]
			for i, xi := range lay.Pre {
				if !xi.IsZero() {
					side(xi, pre[n][k][i].Lo, pre[n][k][i].Hi, fmt.Sprintf("xi%d.L%d[%d]", n+1, k, i))
				}
			}
		}
		l.kept(n, func(r neuronRef, lay *Layer) {
			xi, phi := lay.Pre[r.i], lay.Post[r.i]
			switch lay.Act.Kind {
			case nn.ReLU:
				b := pre[n][r.layer][r.i]
				fs = append(fs, Fact{phi, r.String() + ">=0"}, Fact{Sub(phi, xi), r.String() + ">=xi"})
				if b.Lo < 0 && b.Hi > 0 {
					fs = append(fs, Fact{triangle(l, xi, phi, b.Lo, b.Hi), r.String() + " triangle"})
				}
			case nn.HardTanh:
				side(phi, lay.Act.Lo, lay.Act.Hi, r.String())
			}
		})
	}
	return fs
}

// Product returns the constraint (a^T eta)(b^T eta) >= 0 of two facts.
func Product(a, b Fact) Term {
	return Term{Kind: KindFactProduct, Sign: NonNeg, A: a.F, B: b.F, Where: a.Where + " * " + b.Where}
}
