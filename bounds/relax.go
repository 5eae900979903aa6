package bounds

import (
	"math"

	"github.com/nnbound/nnbound/nn"
)

// line is the affine function z -> A z + C.
type line struct{ A, C float64 }

// relaxation holds, per neuron of a layer, lines with
//
//	Lower[i](z) <= phi(z) <= Upper[i](z)   for z in the neuron's pre-activation bound.
type relaxation struct {
	Lower, Upper []line
}

// relaxLayer returns sound linear relaxations of a on each interval of pre.
func relaxLayer(a nn.Activation, pre []Interval) relaxation {
	r := relaxation{Lower: make([]line, len(pre)), Upper: make([]line, len(pre))}
	for i, x := range pre {
		r.Lower[i], r.Upper[i] = relax(a, x.Lo, x.Hi)
	}
	return r
}

// relax returns lines below and above a on [l, u]. Candidate slopes (the
// chord, the slopes at the ends and the middle, those of linear pieces, 0)
// are each given their rigorous offset, and the line lowest (highest) at
// the middle of [l, u] is kept: for a line that is the one enclosing the
// least area with phi.
func relax(a nn.Activation, l, u float64) (lower, upper line) {
	if a.Kind == nn.Identity {
		return line{1, 0}, line{1, 0}
	}
	if !(u > l) { // a point
		return line{0, actDown(a, l)}, line{0, actUp(a, u)}
	}
	if math.IsInf(l, 0) || math.IsInf(u, 0) { // constant lines: the image
		img := actImage(a, Interval{l, u})
		return line{0, img.Lo}, line{0, img.Hi}
	}
	mid := l/2 + u/2
	lower = line{0, minGap(a, 0, l, u)}
	upper = line{0, maxGap(a, 0, l, u)}
	bestL, bestU := lower.C, upper.C
	// Ties (up to rounding margins) go to the later candidate: for ReLU on
	// a symmetric interval that is slope 1 (CROWN's choice), not 0.
	tol := 0x1p-40 * (math.Abs(l) + math.Abs(u))
	for _, s := range candidateSlopes(a, l, u) {
		if math.IsNaN(s) || math.IsInf(s, 0) || s == 0 {
			continue
		}
		if c := minGap(a, s, l, u); s*mid+c >= bestL-tol*max(1, math.Abs(s)) {
			lower, bestL = line{s, c}, s*mid+c
		}
		if c := maxGap(a, s, l, u); s*mid+c < bestU {
			upper, bestU = line{s, c}, s*mid+c
		}
	}
	return lower, upper
}

// candidateSlopes returns the slopes tried by relax on [l, u].
func candidateSlopes(a nn.Activation, l, u float64) []float64 {
	chord := (a.Apply(u) - a.Apply(l)) / (u - l)
	s := []float64{chord, 1}
	switch a.Kind {
	case nn.LeakyReLU:
		s = append(s, a.Alpha)
	case nn.ELU:
		s = append(s, a.Alpha*math.Exp(min(l, 0)), a.Alpha*math.Exp(min(u, 0)), a.Alpha*math.Exp(min(l/2+u/2, 0)))
	case nn.Tanh, nn.Sigmoid:
		dl, du := smoothSlope(a, l), smoothSlope(a, u)
		s = append(s, dl, du, smoothSlope(a, l/2+u/2), min(dl, du))
		// Tangent slopes at the ends of the sub-intervals on one side of 0.
		if l < 0 && u > 0 {
			s = append(s, smoothSlope(a, l/2), smoothSlope(a, u/2))
		}
	}
	return s
}
