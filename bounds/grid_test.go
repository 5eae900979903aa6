package bounds

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// TestTightenGridSound checks lowered.tightenGrid and tightenPost on
// random quantisers and ranges of the pre-activation v, many of them
// around the ends of the quantiser's range: at sampled v (and the range's
// ends) every value s j a kernel may round to (j between round((v - K s)
// / s) and round((v + K s) / s), K the slack) must lie in the tightened
// bounds, the lowered activation there must give the quantiser's output,
// and that output must lie in the tightened output bounds.
func TestTightenGridSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 2))
	for trial := range 3000 {
		q := &nn.Quantiser{Scale: []float64{math.Exp(-7 + 5*rng.Float64())}, Zero: []int64{int64(rng.IntN(256))}, Lo: 0, Hi: 255}
		if trial%2 == 1 {
			q.Zero[0], q.Lo, q.Hi = int64(rng.IntN(256)-128), -128, 127
		}
		act := nn.Activation{Kind: nn.Identity}
		if trial%3 == 1 {
			act = nn.Activation{Kind: nn.ReLU}
		}
		slack := float64(trial % 4 / 3) // 1 for a quarter of the trials
		s, _ := q.At(0)
		a, b := q.Range(0)
		centre := []float64{a, b, a + (b-a)*rng.Float64(), 0}[rng.IntN(4)]
		vlo := centre + s*(8*rng.Float64()-4)
		vhi := vlo + s*[]float64{0, 0.3, 1, 4}[rng.IntN(4)]*rng.Float64()
		m := lowered{noise: [][]float64{radii(q, 1, slack)}, stairs: []*staircase{{q: q, act: act}}, slack: slack}
		r := m.noise[0][0]
		pre := []Interval{{outward.SubDown(vlo, r), outward.AddUp(vhi, r)}}
		lact, err := clampAct(q, act)
		if err != nil {
			t.Fatal(err)
		}
		m.tightenGrid(0, pre) // then the output bounds from the tightened ones, as Pair does
		post := []Interval{actImage(lact, pre[0])}
		m.tightenPost(0, pre, post)
		for n := range 40 {
			v := vlo + (vhi-vlo)*rng.Float64()
			if n < 2 {
				v = []float64{vlo, vhi}[n]
			}
			for j := math.RoundToEven((v - slack*s) / s); j <= math.RoundToEven((v+slack*s)/s); j++ {
				xi, y := j*s, act.Apply(q.Apply(0, v+(j-math.RoundToEven(v/s))*s))
				if !pre[0].Contains(xi) || lact.Apply(xi) != y || !post[0].Contains(y) {
					t.Fatalf("trial %d (s %g, z %d, %v, slack %g): v = %v rounds to %v, output %v: outside the tightened %v or the output %v, or the lowered activation gives %v",
						trial, s, q.Zero[0], act.Kind, slack, v, xi, y, pre[0], post[0], lact.Apply(xi))
				}
			}
		}
	}
}

// TestWithinQuantised is TestWithinChild for float vs int8 pairs (qdqPair):
// the parent's bounds of the quantised layers hold only for the rounding
// noise the quantisers add (tightenGrid), and the child derives the
// quantisers' values from them. The child's bounds must hold at the
// sub-box's (or the box's) corners and random points.
func TestWithinQuantised(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 0))
	for trial := range 60 {
		f, fq, box := qdqPair(t, rng)
		opts := soundnessOptions[trial%len(soundnessOptions)]
		opts.Split = 0
		in := spec.Inputs{Box: box, Pairing: spec.SameInput}
		parent, err := Pair(f, fq, in, opts)
		if err != nil {
			t.Fatal(err)
		}
		child := in
		if trial%3 != 0 { // else the same box: the parent's bounds are the tightest
			child.Box = subBox(rng, box)
		}
		opts.Within = parent
		if trial%2 == 0 {
			opts.Within = parent.Prior()
		}
		pb, err := Pair(f, fq, child, opts)
		if err != nil {
			t.Fatal(err)
		}
		planar, err := pb.Norm2Planar(4)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range campaignPoints(rng, child.Box) {
			y1, _ := f.Eval(x)
			y2, _ := fq.Eval(x)
			n2, ys := 0.0, 0.0
			for j := range y1 {
				n2 += (y2[j] - y1[j]) * (y2[j] - y1[j])
				ys += math.Abs(y1[j])
				if !near(pb.Output[j], y2[j]-y1[j], math.Abs(y1[j])) {
					t.Fatalf("trial %d (%v): at x=%v output %d: difference %v outside %v", trial, opts.Method, x, j, y2[j]-y1[j], pb.Output[j])
				}
			}
			if n2 = math.Sqrt(n2); !near(Interval{0, planar}, n2, ys) {
				t.Fatalf("trial %d (%v): ||fq - f|| = %v at x=%v above Norm2Planar %v", trial, opts.Method, n2, x, planar)
			}
		}
	}
}
