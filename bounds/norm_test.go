package bounds

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPolygonNorm checks polygonNorm on clouds of random points in the
// plane, offset from the origin or not: with h_t the largest n_t^T d over
// the cloud, the bound must be at least the largest norm in the cloud and
// at most max_t |h_t| / cos(pi / m), the bound of a disc.
func TestPolygonNorm(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 0))
	for trial := range 2000 {
		m := 2 * (2 + rng.IntN(15))
		cx, cy := rng.NormFloat64()*float64(trial%3), rng.NormFloat64()*float64(trial%3)
		sx, sy := math.Exp(rng.NormFloat64()), math.Exp(rng.NormFloat64())
		var pts [][2]float64
		for range 1 + rng.IntN(30) {
			pts = append(pts, [2]float64{cx + sx*rng.NormFloat64(), cy + sy*rng.NormFloat64()})
		}
		h := make([]float64, m)
		worst, disc := 0.0, 0.0
		for a := range m {
			th := 2 * math.Pi * float64(a) / float64(m)
			h[a] = math.Inf(-1)
			for _, p := range pts {
				h[a] = max(h[a], math.Cos(th)*p[0]+math.Sin(th)*p[1])
			}
			disc = max(disc, math.Abs(h[a]))
		}
		for _, p := range pts {
			worst = max(worst, math.Hypot(p[0], p[1]))
		}
		got, _ := polygonNorm(h)
		if got < worst || got > disc/math.Cos(math.Pi/float64(m))*(1+1e-9) {
			t.Fatalf("trial %d (%d half-planes): bound %v, largest norm %v, disc bound %v", trial, m, got, worst, disc/math.Cos(math.Pi/float64(m)))
		}
	}
}
