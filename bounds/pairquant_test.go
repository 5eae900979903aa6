package bounds

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/nn"
)

// TestQuantConstantSound samples narrow intervals (points, steps' middles,
// near ties, past both ends of the range) and checks that the image and
// lines of a quantiser contain its value at sampled points, and that an
// interval inside one step gets a point image.
func TestQuantConstantSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	q := &nn.Quantiser{Scale: []float64{0.0173}, Zero: []int64{7}, Lo: 0, Hi: 15}
	s := q.Scale[0]
	inside := 0
	for range 20000 {
		k := float64(rng.IntN(30) - 14) // some past the range [-7, 8]
		c := (k + []float64{0, 0.5, 0.25, -0.49999999}[rng.IntN(4)]) * s
		w := []float64{0, 1e-15, 1e-9, 0.3 * s}[rng.IntN(4)] * rng.Float64()
		x := Interval{c - w, c + w}
		img := quantImage(q, 0, x)
		lo, up := quantLines(q, 0, x)
		if _, one, _ := quantRange(q, 0, x); one {
			inside++
			if img.Hi-img.Lo > 1e-15 {
				t.Fatalf("%v inside one step, image %v", x, img)
			}
		}
		for range 8 {
			v := x.Lo + rng.Float64()*(x.Hi-x.Lo)
			y := q.Apply(0, v)
			if !img.Contains(y) || y < lo.A*v+lo.C-1e-12 || y > up.A*v+up.C+1e-12 {
				t.Fatalf("q(%v) = %v: image %v, lines %v %v (interval %v)", v, y, img, lo, up, x)
			}
		}
	}
	if inside < 5000 {
		t.Errorf("only %d intervals of 20000 found inside one step", inside)
	}
	// A tie is never a constant.
	if _, one, _ := quantRange(q, 0, Point(0.5*s)); one {
		t.Error("a tie found inside one step")
	}
	if _, one, _ := quantRange(q, 0, Interval{math.Inf(-1), 0}); one {
		t.Error("an infinite interval found inside one step")
	}
}
