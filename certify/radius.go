package certify

import (
	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/qc"
)

// etaRadius returns, per coordinate of eta, a bound on its magnitude over
// the region: the input boxes, the post-activation bounds of kept neurons
// (or the activation's range when no bounds are given), the radius of
// each rounding of an int8 quantiser, how far each clamp's excess can
// get, and 1.
func etaRadius(l *qc.Layout, r *region, rb *regionBounds) []float64 {
	rad := make([]float64, l.Dim)
	rad[l.One] = 1
	for i := range l.X1 {
		if l.Inputs1[i].Mode == qc.InputFree {
			rad[l.X1[i].Idx[0]] = max(abs(r.Box1.Lo[i]), abs(r.Box1.Hi[i]))
		}
		if l.Inputs[i].Mode == qc.InputFree {
			rad[l.X2[i].Idx[0]] = max(abs(r.Box2.Lo[i]), abs(r.Box2.Hi[i]))
		}
	}
	for n := range 2 {
		for k, lay := range l.Nets[n].Layers {
			for i, c := range lay.NoiseCoord {
				if c >= 0 {
					rad[c] = lay.NoiseRad[i]
				}
			}
			for i, pre := range rb.Nets[n].Pre[k] {
				// An excess of a clamp is at most how far xi gets beyond it.
				if c := lay.SatAbove[i]; c >= 0 {
					rad[c] = max(0, outward.SubUp(pre.Hi, lay.Sat[i].Hi))
				}
				if c := lay.SatBelow[i]; c >= 0 {
					rad[c] = max(0, outward.SubUp(lay.Sat[i].Lo, pre.Lo))
				}
			}
			for i, c := range lay.Coord {
				// Post is act(xi), not the clamped output that the bounds
				// Post and DiffPost enclose; act is the identity or a ReLU,
				// |act(xi)| <= |xi|.
				clamped := lay.SatAbove[i] >= 0 || lay.SatBelow[i] >= 0
				if lay.Diff[i] {
					twin := &l.Nets[0].Layers[k]
					clamped = clamped || twin.SatAbove[i] >= 0 || twin.SatBelow[i] >= 0
				}
				switch {
				case c < 0:
				case clamped && lay.Diff[i]:
					rad[c] = outward.AddUpStep(max(rb.Nets[0].Post[k][i].Mag(), rb.Nets[0].Pre[k][i].Mag()), rb.Nets[1].Pre[k][i].Mag())
				case clamped:
					rad[c] = rb.Nets[n].Pre[k][i].Mag()
				case lay.Diff[i] && k < len(rb.DiffPost) && rb.DiffPost[k] != nil:
					rad[c] = rb.DiffPost[k][i].Mag()
				case lay.Diff[i]:
					rad[c] = outward.AddUpStep(rb.Nets[0].Post[k][i].Mag(), rb.Nets[1].Post[k][i].Mag())
				default:
					rad[c] = rb.Nets[n].Post[k][i].Mag()
				}
			}
		}
	}
	return rad
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
