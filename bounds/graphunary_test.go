package bounds

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// TestUnaryLinesSound samples each function's lines and image on random
// intervals (both ends and 200 points): lower <= f <= upper, with the
// lines evaluated rounding outward.
func TestUnaryLinesSound(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 1))
	fns := []nn.Unary{{F: nn.Exp}, {F: nn.Sqrt}, {F: nn.Reciprocal}, {F: nn.Square}, {F: nn.Cube},
		{F: nn.Erf}, {F: nn.GELU, C: 1 / math.Sqrt2}, {F: nn.GELU, C: 0.7071067690849304}}
	for _, u := range fns {
		for trial := range 400 {
			c, w := 4*r.NormFloat64(), math.Pow(10, -4+5*r.Float64())
			if trial%10 == 0 {
				w = 0
			}
			x := Interval{c - w*r.Float64(), c + w*r.Float64()}
			switch {
			case u.F == nn.Sqrt:
				x = Interval{math.Abs(x.Lo), math.Abs(x.Lo) + x.Width()}
				if trial%7 == 0 {
					x.Lo = 0
				}
			case u.F == nn.Reciprocal && x.Straddles():
				x = Interval{x.Hi, x.Hi + x.Width()}
			}
			lo, up := unaryLines(u, x)
			img := unaryImage(u, x)
			for k := range 202 {
				s := x.Lo + (x.Hi-x.Lo)*r.Float64()
				if k < 2 {
					s = []float64{x.Lo, x.Hi}[k]
				}
				f := u.Apply(s)
				l := outward.AddDown(outward.MulDown(lo.A, s), lo.C)
				h := outward.AddUp(outward.MulUp(up.A, s), up.C)
				if !(l <= f && f <= h) || !img.Contains(f) {
					t.Fatalf("%s on %v at %v: %v not in lines [%v, %v] or image %v", u.Describe(), x, s, f, l, h, img)
				}
			}
		}
	}
}

// TestMulLinesSound samples the planes and image of a product on random
// boxes, their corners among the points.
func TestMulLinesSound(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 2))
	for range 2000 {
		x := Interval{r.NormFloat64(), 0}
		x.Hi = x.Lo + math.Abs(r.NormFloat64())
		y := Interval{3 * r.NormFloat64(), 0}
		y.Hi = y.Lo + 0.1*math.Abs(r.NormFloat64())
		lo, up := mulLines(x, y)
		img := mulImage(x, y)
		for k := range 54 {
			a, b := x.Lo+(x.Hi-x.Lo)*r.Float64(), y.Lo+(y.Hi-y.Lo)*r.Float64()
			if k < 4 {
				a, b = []float64{x.Lo, x.Hi}[k%2], []float64{y.Lo, y.Hi}[k/2]
			}
			p := a * b
			l := outward.AddDown(outward.AddDown(outward.MulDown(lo.A, a), outward.MulDown(lo.B, b)), lo.C)
			h := outward.AddUp(outward.AddUp(outward.MulUp(up.A, a), outward.MulUp(up.B, b)), up.C)
			if !(l <= p && p <= h) || !img.Contains(p) {
				t.Fatalf("%v x %v at (%v, %v): %v not in planes [%v, %v] or image %v", x, y, a, b, p, l, h, img)
			}
		}
	}
}

// TestAttentionSound bounds random attention blocks (widths 4 to 16, one
// or two heads, 2 to 4 tokens) on random boxes, alone and paired with a
// perturbed copy, and checks every value at sampled points and corners of
// the box; the pairs alternate between the difference graph and the
// combined graph. NNBOUND_LONG=1 runs 2,000 certificates, else 40.
func TestAttentionSound(t *testing.T) {
	runs := 40
	if os.Getenv("NNBOUND_LONG") == "1" {
		runs = 2000
	}
	r := rand.New(rand.NewPCG(32, 3))
	violations := 0
	for run := range runs {
		heads := 1 + r.IntN(2)
		d := heads * (2 + r.IntN(7)) // 2..16
		d = max(d, 4)
		if d%heads != 0 {
			d += heads - d%heads
		}
		tokens := 2 + r.IntN(3)
		g := randnet.Attention(r, tokens, d, heads)
		if err := g.Validate(); err != nil {
			t.Fatal(err)
		}
		n := g.InputSize()
		box := spec.Box{Lo: make([]float64, n), Hi: make([]float64, n)}
		rad := math.Pow(10, -3+2.5*r.Float64())
		for i := range n {
			c := r.NormFloat64()
			box.Lo[i], box.Hi[i] = c-rad, c+rad
		}
		opts := DefaultGraphOptions()
		opts.Intermediate = GraphIntermediate(run % 3)
		net, err := GraphSingle(g, box, opts)
		if err != nil {
			t.Fatal(err)
		}
		g2 := perturbed(r, g, 1e-3)
		opts.Combined = run%2 == 1 // else the difference graph
		pair, err := GraphPair(g, g2, spec.Inputs{Box: box}, opts)
		if err != nil {
			t.Fatal(err)
		}
		for k := range 40 {
			x := make([]float64, n)
			for i := range x {
				x[i] = box.Lo[i] + (box.Hi[i]-box.Lo[i])*r.Float64()
				if k < 2 {
					x[i] = []float64{box.Lo[i], box.Hi[i]}[(k+i)%2]
				}
			}
			vals, _ := g.EvalAll(x)
			for v, val := range vals {
				for i, s := range val {
					if !net.Values[v][i].Contains(s) {
						violations++
						t.Errorf("run %d (%d tokens, width %d, %d heads, %v): value %d[%d] = %v outside %v",
							run, tokens, d, heads, opts.Intermediate, v, i, s, net.Values[v][i])
					}
				}
			}
			y2, _ := g2.Eval(x)
			for i, s := range y2 {
				if diff := s - vals[len(vals)-1][i]; !pair.Diff[i].Contains(diff) {
					violations++
					t.Errorf("run %d: difference %d = %v outside %v", run, i, diff, pair.Diff[i])
				}
			}
		}
		if violations > 20 {
			t.Fatal("too many violations")
		}
	}
	t.Logf("%d certificates (single and pair), %d violations", 2*runs, violations)
}

// TestUnaryUnbounded checks the images and lines of unbounded intervals
// and of intervals outside a function's domain.
func TestUnaryUnbounded(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		u    nn.Unary
		x    Interval
		want Interval // an enclosure the image must lie in, and contain the samples
	}{
		{nn.Unary{F: nn.Exp}, Interval{-1, inf}, Interval{0.36, inf}},
		{nn.Unary{F: nn.Exp}, Interval{-inf, 800}, Interval{0, inf}},
		{nn.Unary{F: nn.Reciprocal}, Interval{2, inf}, Interval{-1e-300, 0.5000001}},
		{nn.Unary{F: nn.Reciprocal}, Interval{-inf, -4}, Interval{-0.2500001, 1e-300}},
		{nn.Unary{F: nn.Sqrt}, Interval{4, inf}, Interval{1.999999, inf}},
		{nn.Unary{F: nn.Erf}, Interval{-inf, inf}, Interval{-1.0000001, 1.0000001}},
	}
	for _, c := range cases {
		img := unaryImage(c.u, c.x)
		lo, up := unaryLines(c.u, c.x)
		if img.Lo < c.want.Lo || img.Hi > c.want.Hi {
			t.Errorf("%s on %v: image %v, want within %v", c.u.Describe(), c.x, img, c.want)
		}
		for _, s := range []float64{c.x.Lo, c.x.Hi, 5, 1e300, -1e300} {
			if !c.x.Contains(s) {
				continue
			}
			f := c.u.Apply(s)
			if !img.Contains(f) || lo.A != 0 || up.A != 0 || f < lo.C || f > up.C {
				t.Errorf("%s at %v = %v: image %v, lines %v %v", c.u.Describe(), s, f, img, lo, up)
			}
		}
	}
	for _, x := range []Interval{{-1, 1}, {0, 0}} {
		if img := unaryImage(nn.Unary{F: nn.Reciprocal}, x); !math.IsInf(img.Lo, -1) || !math.IsInf(img.Hi, 1) {
			t.Errorf("reciprocal of %v: image %v, want unbounded", x, img)
		}
	}
	if img := unaryImage(nn.Unary{F: nn.Sqrt}, Interval{-1e-9, 1}); !math.IsInf(img.Hi, 1) {
		t.Errorf("sqrt of an interval below 0: image %v, want unbounded (NaN possible)", img)
	}
}
