package certify

import (
	"math"

	"github.com/nnbound/nnbound/qc"
)

// What the SDP leaves out of the LMI. Where a neuron is zero on the
// region (dead on its bounds, or its weights quantised or pruned to zero),
// its coordinate eta_c is zero there, and scaled by s_c = 2^-500 (the
// floor of pow2Above) its row and column of the LMI would be debris of
// 1e-151 (1e-302 on the diagonal) beside entries of order one: numbers no
// float64 sum with the others sees, which leave the block with no
// interior to speak of. The SDP is written without them:
//
//   - a coordinate whose radius is at most 2^-500 is not a coordinate of
//     the SDP's block: |eta_c| <= r_c makes its row and column contribute
//     nothing to eta^T M eta on the region when r_c = 0, and, when r_c is
//     a rounding error above an exact zero (1e-323 from outward
//     rounding), no more than 2^-500 times the other entries;
//   - a component of a form (d of the objective, f of a gamma group, a
//     or b of a term) below negligible times the form's largest is left
//     out, and so is an entry of the objective below negligible times its
//     largest;
//   - a term with nothing left of a or b has the matrix 0 in the SDP and
//     no multiplier (it is 0 in the check).
//
// None of this weakens the certificate: the check rebuilds M from the
// layout's forms with every coordinate and entry, at the scale s_c, and
// bounds its largest eigenvalue rigorously; what the SDP left out costs
// at most a share of the margin of the order of what was left out.

// negligible is the size, relative to the largest entry of the same
// matrix (or component of the same vector), below which the SDP leaves an
// entry out.
const negligible = 1e-30

// sdpCoords returns pos, the index in the SDP's PSD blocks of each
// coordinate of the layout (-1 for one left out: radius <= 2^-500), and
// the number of coordinates kept, the order of the blocks.
func (m *lmi) sdpCoords() (pos []int, size int) {
	pos = make([]int, len(m.radius))
	for c, r := range m.radius {
		pos[c] = -1
		if !(r <= 0x1p-500) { // keeps a NaN radius, for the check to reject
			pos[c] = size
			size++
		}
	}
	return pos, size
}

// sdpForm returns the form f in the SDP's coordinates: c in pos[c] and
// scaled by scale[c] (a power of two: exact), without the coordinates left
// out (pos[c] < 0) and without the components that are zero or negligible
// beside its largest, whose entries f_a f_b of f f^T are then negligible
// beside the largest too.
func sdpForm(f qc.Form, scale []float64, pos []int) qc.Form {
	var idx []int
	var val []float64
	big := 0.0
	for k, c := range f.Idx {
		if v := f.Val[k] * scale[c]; pos[c] >= 0 && v != 0 {
			idx, val = append(idx, pos[c]), append(val, v)
			big = max(big, math.Abs(v))
		}
	}
	out := qc.Form{}
	for k, v := range val {
		if math.Abs(v) > negligible*big {
			out.Idx, out.Val = append(out.Idx, idx[k]), append(out.Val, v)
		}
	}
	return out
}
