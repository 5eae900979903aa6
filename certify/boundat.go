package certify

import (
	"math"

	"github.com/nnbound/nnbound/spec"
)

// BoundAt returns a certified bound at one input pair (x1, x2) of the
// input set on what c bounds (Quantity): the smallest of the bound over
// the whole input set, the root inequality
//
//	sqrt(gamma + gamma_x1 ||x1||^2 + gamma_x2 ||x2||^2 + gamma_x ||x1 - x2||^2)
//
// of the certificate's Gammas when the root SDP was certified
// (RootCertified) and of the SDP's own checked gammas (SDPGammas: they
// still hold when bound propagation's enclosure gave the bound and
// Gammas are its (Bound^2, 0, 0, 0)), and the bound of the pieces
// holding (x1, x2) (the largest of them, for a pair on a border). For
// the inf-norm over several outputs the gammas bound the output with the
// largest bound only (WorstOutput); the others keep their bounds over
// the input set. A certificate that is not certified returns its Bound
// (+Inf or NaN). The pair must lie in the certificate's input set: the
// bound says nothing about other inputs.
func (c *Certificate) BoundAt(x1, x2 []float64) float64 {
	b := c.Bound
	if c.RootCertified() {
		b = min(b, c.gammaBound(c.Gammas, x1, x2))
	}
	if c.SDPGammasHold() {
		b = min(b, c.gammaBound(c.SDPGammas, x1, x2))
	}
	piece := math.Inf(-1)
	for _, p := range c.Pieces {
		if (spec.Box{Lo: p.Lo1, Hi: p.Hi1}).Contains(x1) && (spec.Box{Lo: p.Lo2, Hi: p.Hi2}).Contains(x2) {
			piece = max(piece, p.Bound)
		}
	}
	if !math.IsInf(piece, -1) {
		b = min(b, piece)
	}
	return b
}

// gammaBound returns the bound of gammas g of c at (x1, x2): the square
// root of the right-hand side of the root inequality, or for the inf-norm
// over several outputs the largest of it and the other outputs' bounds.
func (c *Certificate) gammaBound(g Gammas, x1, x2 []float64) float64 {
	var n1, n2, d float64
	for i := range x1 {
		n1 += x1[i] * x1[i]
		n2 += x2[i] * x2[i]
		d += (x1[i] - x2[i]) * (x1[i] - x2[i])
	}
	b := math.Sqrt(max(0, g.Gamma+g.GammaX1*n1+g.GammaX2*n2+g.GammaX*d))
	if c.Quantity.C == nil && c.Quantity.Norm == spec.NormInf && len(c.Outputs) > 1 {
		worst := c.WorstOutput()
		for j, bj := range c.Outputs {
			if j != worst {
				b = max(b, bj)
			}
		}
	}
	return b
}

// SDPGammasHold reports whether c holds the root SDP's own checked
// gammas (SDPGammas, zero when no SDP passed the check).
func (c *Certificate) SDPGammasHold() bool {
	return c.Certified() && c.SDPGammas != (Gammas{})
}

// RootCertified reports whether the Gammas of c hold: c is certified and
// the root SDP over the whole input set was (a certificate may also be
// certified by its pieces alone, with a non-finite RootBound).
func (c *Certificate) RootCertified() bool {
	return c.Certified() && !math.IsInf(c.RootBound, 0) && !math.IsNaN(c.RootBound)
}

// WorstOutput returns the output with the largest bound of an inf-norm
// certificate (the first of equals; 0 when Outputs is empty), whose
// gammas the certificate holds.
func (c *Certificate) WorstOutput() int {
	k := 0
	for j, b := range c.Outputs {
		if b > c.Outputs[k] {
			k = j
		}
	}
	return k
}
