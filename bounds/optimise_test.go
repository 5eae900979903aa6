package bounds

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// allTargets returns every neuron of layer k of f twice, with signs +1 and -1.
func allTargets(f *nn.Network, k int) (rows []int, sign []float64) {
	for i := range f.Layers[k].Out() {
		rows = append(rows, i, i)
		sign = append(sign, 1, -1)
	}
	return rows, sign
}

// setSlopes sets every free slope of o to pick(lo, hi), given its range.
func setSlopes(o *slopeOpt, pick func(lo, hi float64) float64) {
	for _, sl := range o.slopes {
		if sl == nil {
			continue
		}
		for idx := range sl.s {
			i := idx % sl.n
			sl.s[idx] = pick(sl.free.lo[i], sl.free.hi[i])
		}
	}
}

// randomSlopeOpt returns the optimisation of every output bound (each
// sign) of a random 3-8-8-8-2 network on [-1, 1]^3, ReLU for even trials
// and leaky ReLU for odd ones, and the target rows.
func randomSlopeOpt(rng *rand.Rand, trial int) (*slopeOpt, []int) {
	leaky := nn.Activation{Kind: nn.LeakyReLU, Alpha: 0.3 * rng.Float64()}
	act := []nn.Activation{{Kind: nn.ReLU}, leaky}[trial%2]
	f := boundstest.Network(rng, []int{3, 8, 8, 8, 2}, 1, act)
	s, _ := symbolicState(context.Background(), lowered{f: f}, boxIntervals(spec.Box{Lo: []float64{-1, -1, -1}, Hi: []float64{1, 1, 1}}), nil)
	k := len(f.Layers) - 1
	rows, sign := allTargets(f, k)
	return s.slopeOpt(k, rows, sign), rows
}

func TestSlopeGradient(t *testing.T) {
	// The reverse pass agrees with central differences of the forward pass
	// (away from the kinks of the piecewise-linear bound).
	rng := rand.New(rand.NewPCG(20, 0))
	checked := 0
	for trial := range 60 {
		o, rows := randomSlopeOpt(rng, trial)
		setSlopes(o, func(lo, hi float64) float64 { return lo + (hi-lo)*(0.1+0.8*rng.Float64()) })
		base := make([]float64, len(rows))
		o.forward(base)
		o.backward()
		plus, minus := make([]float64, len(rows)), make([]float64, len(rows))
		const h = 1e-7
		for j, sl := range o.slopes {
			if sl == nil {
				continue
			}
			for idx := range sl.s {
				r := idx / sl.n
				g := o.grad[j][idx]
				v := sl.s[idx]
				sl.s[idx] = v + h
				o.forward(plus)
				sl.s[idx] = v - h
				o.forward(minus)
				sl.s[idx] = v
				fd := (plus[r] - minus[r]) / (2 * h)
				// Only row r depends on its own slopes.
				for q := range rows {
					if q != r && (plus[q] != base[q] || minus[q] != base[q]) {
						t.Fatalf("trial %d: slope %d of row %d changed row %d", trial, idx, r, q)
					}
				}
				// Skip kinks: one-sided differences that disagree.
				left, right := (base[r]-minus[r])/h, (plus[r]-base[r])/h
				if math.Abs(left-right) > 1e-4*(1+math.Abs(fd)) {
					continue
				}
				if math.Abs(fd-g) > 1e-5*(1+math.Abs(fd)) {
					t.Fatalf("trial %d layer %d slope %d: gradient %v, central difference %v", trial, j, idx, g, fd)
				}
				checked++
			}
		}
		o.backward() // the state after the probes is that of base again
	}
	if checked < 1000 {
		t.Errorf("only %d partial derivatives checked", checked)
	}
}

func TestOptimisedSoundWithAnySlopes(t *testing.T) {
	// The rigorous back-substitution clamps slopes into their ranges: with
	// arbitrary slopes (out of range, infinite, NaN) its bounds still
	// enclose every sampled pre-activation, and with slopes in range they
	// never beat the exact extremes found on a dense grid (1 input).
	rng := rand.New(rand.NewPCG(21, 0))
	junk := []float64{math.NaN(), math.Inf(1), math.Inf(-1), -3, 5, 0.5}
	for trial := range 60 {
		act := boundstest.Activations[1+rng.IntN(2)]
		f := boundstest.Network(rng, []int{1, 6, 6, 6, 1}, 1, act)
		box := spec.Box{Lo: []float64{-1 - rng.Float64()}, Hi: []float64{1 + rng.Float64()}}
		s, _ := symbolicState(context.Background(), lowered{f: f}, boxIntervals(box), nil)
		for k := 1; k < len(f.Layers); k++ {
			rows, sign := allTargets(f, k)
			o := s.slopeOpt(k, rows, sign)
			setSlopes(o, func(_, _ float64) float64 {
				if rng.IntN(2) == 0 {
					return junk[rng.IntN(len(junk))]
				}
				return 2*rng.Float64() - 0.5
			})
			b := s.backSubstitute(k, rows, sign, o.slopes)
			for g := range 2001 {
				x := []float64{box.Lo[0] + (box.Hi[0]-box.Lo[0])*float64(g)/2000}
				pre, _ := boundstest.Trace(f, x)
				for r, i := range rows {
					v := sign[r] * pre[k][i]
					if math.IsNaN(b[r]) || v > b[r]+1e-12*(1+math.Abs(v)) {
						t.Fatalf("trial %d layer %d row %d: value %v above bound %v at x = %v", trial, k, r, v, b[r], x[0])
					}
				}
			}
		}
	}
}

func TestOptimisedTighterOnDeepNetworks(t *testing.T) {
	// On random deep ReLU networks the optimised slopes leave fewer unstable
	// neurons and a narrower output than the heuristic ones.
	rng := rand.New(rand.NewPCG(22, 0))
	var uSym, uOpt int
	var wSym, wOpt float64
	for range 20 {
		f := boundstest.Network(rng, []int{4, 20, 20, 20, 20, 2}, 0.5, nn.Activation{Kind: nn.ReLU})
		box := spec.Box{Lo: []float64{-0.3, -0.3, -0.3, -0.3}, Hi: []float64{0.3, 0.3, 0.3, 0.3}}
		sym, err := Single(f, box, Options{Method: MethodSymbolic})
		if err != nil {
			t.Fatal(err)
		}
		opt, _ := Single(f, box, Options{Method: MethodOptimised})
		for k := range sym.Pre {
			for i := range sym.Pre[k] {
				if sym.Pre[k][i].Straddles() {
					uSym++
				}
				if opt.Pre[k][i].Straddles() {
					uOpt++
				}
			}
		}
		last := len(f.Layers) - 1
		for i := range sym.Post[last] {
			wSym += sym.Post[last][i].Width()
			wOpt += opt.Post[last][i].Width()
		}
	}
	t.Logf("unstable: symbolic %d, optimised %d; output widths %.4g, %.4g", uSym, uOpt, wSym, wOpt)
	if uOpt >= uSym || wOpt >= 0.9*wSym {
		t.Errorf("optimised not tighter: unstable %d vs %d, output width %.4g vs %.4g", uOpt, uSym, wOpt, wSym)
	}
}

func TestSplitTighterAndSound(t *testing.T) {
	// Splitting the box never loosens the hulls much and covers the whole
	// box: the bounds of 8 pieces enclose samples and box corners.
	rng := rand.New(rand.NewPCG(23, 0))
	for trial := range 100 {
		f := boundstest.Network(rng, []int{3, 8, 8, 2}, 1, nn.Activation{Kind: nn.ReLU})
		box := randomBox(rng, 3)
		whole, err := Single(f, box, Options{Method: MethodSymbolic})
		if err != nil {
			t.Fatal(err)
		}
		split, _ := Single(f, box, Options{Method: MethodSymbolic, Split: 8})
		for c := range 8 {
			x := make([]float64, 3)
			for i := range x {
				x[i] = box.Lo[i]
				if c>>i&1 == 1 {
					x[i] = box.Hi[i]
				}
			}
			if err := checkNet(f, split, x); err != nil {
				t.Fatalf("trial %d corner %v: %v", trial, x, err)
			}
		}
		for range 50 {
			if err := checkNet(f, split, boundstest.Uniform(rng, box.Lo, box.Hi)); err != nil {
				t.Fatalf("trial %d: %v", trial, err)
			}
		}
		last := len(f.Layers) - 1
		for i, o := range split.Post[last] {
			if w, ww := o.Width(), whole.Post[last][i].Width(); w > ww*(1+1e-9)+1e-12 {
				t.Fatalf("trial %d output %d: split width %v above unsplit %v", trial, i, w, ww)
			}
		}
	}
}

func TestSplitBoxCovers(t *testing.T) {
	// The pieces tile the box: their volumes add up to its volume, and each
	// lies inside it.
	rng := rand.New(rand.NewPCG(24, 0))
	f := boundstest.Network(rng, []int{3, 4, 1}, 1)
	box := spec.Box{Lo: []float64{-1, 0, 2}, Hi: []float64{1, 0, 2.5}}
	for _, parts := range []int{1, 2, 3, 7, 16} {
		pieces := splitBox(box, parts, f)
		if len(pieces) != parts {
			t.Fatalf("%d parts: got %d pieces", parts, len(pieces))
		}
		vol := 0.0
		for _, p := range pieces {
			if !box.Contains(p.Lo) || !box.Contains(p.Hi) {
				t.Fatalf("piece %v outside the box", p)
			}
			if p.Lo[1] != 0 || p.Hi[1] != 0 {
				t.Fatalf("piece %v splits the degenerate coordinate", p)
			}
			vol += (p.Hi[0] - p.Lo[0]) * (p.Hi[2] - p.Lo[2])
		}
		if math.Abs(vol-1) > 1e-12 {
			t.Errorf("%d parts: volumes add up to %v, want 1", parts, vol)
		}
	}
}

func TestSingleLinesMatchTerms(t *testing.T) {
	// The optimiser's single-line levels give the bounds of the general
	// loops over terms to the bit, and the same gradients up to the sign of
	// a zero, for slopes in range (some NaN: the level's line).
	rng := rand.New(rand.NewPCG(26, 0))
	for trial := range 20 {
		o, rows := randomSlopeOpt(rng, trial)
		setSlopes(o, func(lo, hi float64) float64 {
			if rng.IntN(10) == 0 {
				return math.NaN()
			}
			return lo + (hi-lo)*rng.Float64()
		})
		run := func() ([]float64, [][]float64) {
			out := make([]float64, len(rows))
			o.forward(out)
			o.backward()
			grad := make([][]float64, len(o.grad))
			for j, g := range o.grad {
				grad[j] = append([]float64(nil), g...)
			}
			return out, grad
		}
		lines, gLines := run()
		nLines := 0
		for j := range o.levels {
			if o.levels[j].lines != nil {
				nLines++
			}
			o.levels[j].lines = nil
		}
		if nLines == 0 {
			t.Fatalf("trial %d: no level of single lines", trial)
		}
		terms, gTerms := run()
		for r := range rows {
			if math.Float64bits(lines[r]) != math.Float64bits(terms[r]) {
				t.Fatalf("trial %d row %d: bound %v with single lines, %v with terms", trial, r, lines[r], terms[r])
			}
		}
		for j := range gLines {
			for idx, g := range gLines[j] {
				if g != gTerms[j][idx] {
					t.Fatalf("trial %d level %d slope %d: gradient %v with single lines, %v with terms", trial, j, idx, g, gTerms[j][idx])
				}
			}
		}
	}
}
