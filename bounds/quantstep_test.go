package bounds

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/nn"
)

// TestQuantStairSound samples intervals of a few steps (ends at steps'
// middles, at ties and past both ends of the range) and checks that the
// exact image (quantRange), the rounding's image (roundingImage) and
// quantLines contain
// q's value, computed as nn.Quantiser.Apply and with a tie rounded either
// way, at sampled points, the ends and every tie of the interval.
func TestQuantStairSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	quants := []*nn.Quantiser{
		{Scale: []float64{0.0173}, Zero: []int64{7}, Lo: 0, Hi: 15},
		{Scale: []float64{0.1}, Zero: []int64{0}, Lo: -128, Hi: 127},
		{Scale: []float64{0.03125}, Zero: []int64{128}, Lo: 0, Hi: 255},
	}
	// codes returns the codes q may give v: round half to even in float64,
	// and both neighbours at an exact tie.
	codes := func(q *nn.Quantiser, v float64) []float64 {
		s, z := q.At(0)
		clamp := func(k float64) float64 { return min(max(k+float64(z), float64(q.Lo)), float64(q.Hi)) - float64(z) }
		out := []float64{clamp(math.RoundToEven(v / s))}
		if f := math.Floor(v / s); v/s-f == 0.5 {
			out = append(out, clamp(f), clamp(f+1))
		}
		return out
	}
	constant := 0
	for range 20000 {
		q := quants[rng.IntN(len(quants))]
		s, z := q.At(0)
		span := float64(q.Hi - q.Lo)
		k := math.Floor(rng.Float64()*(span+8)) - 4 - float64(z) // some past the range
		end := func(k float64) float64 {
			return (k + []float64{0, 0.5, -0.5, 0.25, 0.49999999, rng.Float64() - 0.5}[rng.IntN(6)]) * s
		}
		x := Interval{end(k), end(k + float64(rng.IntN(5)))}
		if x.Lo > x.Hi {
			x.Lo, x.Hi = x.Hi, x.Lo
		}
		img, one, ok := quantRange(q, 0, x)
		if !ok {
			t.Fatalf("no image of %v", x)
		}
		lo, up := quantLines(q, 0, x)
		rimg := roundingImage(q, 0, x)
		pts := []float64{x.Lo, x.Hi}
		for n := math.Floor(x.Lo/s) - 1; n <= math.Ceil(x.Hi/s)+1; n++ {
			pts = append(pts, (n+0.5)*s, math.Nextafter((n+0.5)*s, math.Inf(1)), math.Nextafter((n+0.5)*s, math.Inf(-1)))
		}
		for range 8 {
			pts = append(pts, x.Lo+rng.Float64()*(x.Hi-x.Lo))
		}
		for _, v := range pts {
			if v < x.Lo || v > x.Hi {
				continue
			}
			ys := []float64{q.Apply(0, v)}
			for _, n := range codes(q, v) {
				ys = append(ys, n*s)
			}
			for _, y := range ys {
				if !img.Contains(y) || !quantImage(q, 0, x).Contains(y) {
					t.Fatalf("q(%v) = %v outside the image %v of %v", v, y, img, x)
				}
				if !rimg.Contains(y - v) {
					t.Fatalf("q(%v) - v = %v outside the rounding's image %v of %v", v, y-v, rimg, x)
				}
				if y < lo.A*v+lo.C-1e-12 || y > up.A*v+up.C+1e-12 {
					t.Fatalf("q(%v) = %v outside the lines %v %v on %v", v, y, lo, up, x)
				}
			}
		}
		if img.Hi-img.Lo > (x.Hi-x.Lo)+s*(1+1e-3) {
			t.Fatalf("the image %v of %v is wider than the noise's", img, x)
		}
		if one {
			if img.Hi-img.Lo > 1e-15*(1+math.Abs(img.Hi)) {
				t.Fatalf("%v inside one step, image %v", x, img)
			}
			constant++
		}
	}
	if constant < 2000 {
		t.Errorf("only %d of 20000 intervals have a constant image", constant)
	}
}

// TestPairQuantStairSound checks the image and the planes of the
// difference of two quantisers (either may be the identity) on narrow
// boxes of (z, d), a few steps wide with ends at ties and past the range,
// at sampled points, corners and ties of z and of z + d.
func TestPairQuantStairSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(63, 64))
	q1 := &nn.Quantiser{Scale: []float64{0.0625}, Zero: []int64{3}, Lo: -8, Hi: 17}
	q2 := &nn.Quantiser{Scale: []float64{0.0625}, Zero: []int64{2}, Lo: -8, Hi: 17}
	ops := []pairQuant{{q1, q2}, {q1, q1}, {nil, q2}, {q1, nil}}
	s := 0.0625
	half := func() float64 { return (math.Floor(rng.Float64()*34) - 14 + []float64{0.5, 0, 0.25}[rng.IntN(3)]) * s }
	constant := 0
	for range 3000 {
		z := Interval{half(), 0}
		z.Hi = z.Lo + float64(rng.IntN(3))*s/2
		d := Interval{-float64(rng.IntN(3)) * s / 4, float64(rng.IntN(3)) * s / 4}
		for _, op := range ops {
			ins := [][]Interval{{z}, {d}}
			rel := nodeRelax(op, ins)
			img := nodeImage(op, nil, ins)
			if img[0].Hi-img[0].Lo < 1e-12 {
				constant++
			}
			var pts [][2]float64
			for _, zv := range []float64{z.Lo, z.Hi, z.Lo/2 + z.Hi/2} {
				for _, dv := range []float64{d.Lo, d.Hi, 0, (math.Round((zv+d.Hi)/s)-0.5)*s - zv} {
					pts = append(pts, [2]float64{zv, dv})
				}
			}
			for range 16 {
				pts = append(pts, [2]float64{z.Lo + rng.Float64()*(z.Hi-z.Lo), d.Lo + rng.Float64()*(d.Hi-d.Lo)})
			}
			for _, p := range pts {
				if !z.Contains(p[0]) || !d.Contains(p[1]) {
					continue
				}
				out := make([]float64, 1)
				op.Eval(out, [][]float64{{p[0]}, {p[1]}})
				lo := rel.low[0].A*p[0] + rel.lowB[0]*p[1] + rel.low[0].C
				hi := rel.up[0].A*p[0] + rel.upB[0]*p[1] + rel.up[0].C
				if v := out[0]; !img[0].Contains(v) || v < lo-1e-12 || v > hi+1e-12 {
					t.Fatalf("%s at z %v, d %v (box %v x %v): %v, image %v, planes [%v, %v]", op.Describe(), p[0], p[1], z, d, v, img[0], lo, hi)
				}
			}
		}
	}
	if constant < 500 {
		t.Errorf("only %d of 12000 boxes have a constant difference", constant)
	}
}
