package verify

import (
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
)

// Quantised outputs and ties.
//
// The outputs of an int8 classifier whose last operation is a quantiser
// (per tensor: one scale s and zero point z) lie, in real arithmetic, on
// its grid
//
//	y_k = s (m_k - z),   m_k an integer,
//
// so two classes tie exactly when their levels m_k are equal, which
// enclosures of the outputs with directed rounding can never show. When
// every output's enclosure holds a single point of the grid, that point
// is the exact output; CheckTop1 then judges the levels, represented by
// the float64 values s (m_k - z), which keep the levels' order and
// equalities since the grid's spacing s is far above float64's rounding.

// outputGrid returns the per-tensor quantiser whose grid holds every
// output of n, or nil: the last layer's Post, or its Pre when there is no
// Post and its activation is the identity or a ReLU (max(0, .) keeps a
// grid point on the grid: 0 is on it, since Lo <= z <= Hi).
func outputGrid(n *nn.Network) *nn.Quantiser {
	l := n.Layers[len(n.Layers)-1]
	q := l.Post
	if q == nil && (l.Act.Kind == nn.Identity || l.Act.Kind == nn.ReLU) {
		q = l.Pre
	}
	if q == nil || q.Len() != 1 {
		return nil
	}
	return q
}

// snapToGrid replaces the enclosures [lo[k], hi[k]] of the outputs of a
// network with output grid q (nil: it returns false) by the grid points
// they hold, each as the float64 value s (m - z), when every enclosure
// holds exactly one grid point. It reports whether it did.
func snapToGrid(q *nn.Quantiser, lo, hi []float64) bool {
	if q == nil {
		return false
	}
	s, z := q.At(0)
	level := make([]float64, len(lo))
	for k := range lo {
		if !(lo[k] <= hi[k]) || math.IsInf(lo[k], 0) || math.IsInf(hi[k], 0) {
			return false
		}
		m := math.Round((lo[k]/2+hi[k]/2)/s) + float64(z) // the candidate level
		if m < float64(q.Lo) || m > float64(q.Hi) {
			return false
		}
		// No other grid point in [lo, hi]: the neighbours' exact values lie
		// outside it.
		below, above := outward.MulUp(m-1-float64(z), s), outward.MulDown(m+1-float64(z), s)
		if !(lo[k] > below && hi[k] < above) {
			return false
		}
		level[k] = (m - float64(z)) * s
	}
	copy(lo, level)
	copy(hi, level)
	return true
}

// classOrTie returns the index of the largest value of y, or -1 when two
// values share the top.
func classOrTie(y []float64) int {
	c := argmax(y)
	for k, v := range y {
		if k != c && v == y[c] {
			return -1
		}
	}
	return c
}
