package sdpa

import (
	"cmp"
	"math"
	"slices"

	"github.com/nnbound/nnbound/sdp"
)

// canonical sorts the entries of a (in place) by (block, i, j), after
// swapping each into the upper triangle, sums entries at one position and
// drops zeros. It returns the shortened slice and, if a sum overflows to
// an infinity, that entry (the matrix is then unusable).
func canonical(a sdp.Matrix) (sdp.Matrix, *sdp.Entry) {
	for n := range a {
		if a[n].I > a[n].J {
			a[n].I, a[n].J = a[n].J, a[n].I
		}
	}
	slices.SortFunc(a, func(x, y sdp.Entry) int {
		return cmp.Or(cmp.Compare(x.Block, y.Block), cmp.Compare(x.I, y.I), cmp.Compare(x.J, y.J))
	})
	out := a[:0]
	for _, e := range a {
		if n := len(out); n > 0 && out[n-1].Block == e.Block && out[n-1].I == e.I && out[n-1].J == e.J {
			out[n-1].V += e.V
			continue
		}
		out = append(out, e)
	}
	for n := range out {
		if math.IsInf(out[n].V, 0) || math.IsNaN(out[n].V) {
			return out, &out[n]
		}
	}
	out = slices.DeleteFunc(out, func(e sdp.Entry) bool { return e.V == 0 })
	if len(out) == 0 {
		return nil, nil // one representation of the empty matrix
	}
	return out, nil
}
