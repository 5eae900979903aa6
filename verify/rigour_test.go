package verify

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// permutedPair returns a random ReLU network f and g, f with its hidden
// neurons permuted and the bias of output 0 raised by c (f's is set to 0
// first, so that g_0 - f_0 = c exactly and the other differences are 0).
func permutedPair(t *testing.T, seed uint64, c float64) (f, g *nn.Network) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 30))
	f, err := randnet.New(rng, []int{3, 12, 12, 2})
	if err != nil {
		t.Fatal(err)
	}
	f.Layers[len(f.Layers)-1].B[0] = 0
	g = randnet.Permuted(f, rng)
	g.Layers[len(g.Layers)-1].B[0] = c
	return f, g
}

// TestCheckPointRigorous checks CheckPoint on pairs whose exact
// difference is known: g a permutation of f (difference 0) with output
// 0's bias raised by c. With eps at the exact difference or one ulp
// above, no point may be Violated, whatever float64 says; one ulp below,
// none may be Holds. Many of these points have a float64 difference past
// eps.
func TestCheckPointRigorous(t *testing.T) {
	floatOver := 0
	for seed := range uint64(6) {
		for _, c := range []float64{0, 0x1p-40, 0.1} {
			f, g := permutedPair(t, seed, c)
			rng := rand.New(rand.NewPCG(seed, 1))
			for range 40 {
				x := []float64{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1}
				for _, norm := range []spec.Norm{spec.PerOutput, spec.NormInf, spec.Norm2} {
					// The exact measure is c in every norm (0 on output 1).
					exact := c
					var ulp []float64
					if exact == 0 {
						ulp = []float64{outward.Tiny, 0x1p-52, 0x1p-60}
					} else {
						ulp = []float64{exact, outward.Up(exact)}
					}
					for _, eps := range ulp {
						tol := spec.Tolerance{Norm: norm, Eps: []float64{eps}}
						p, s, err := CheckPoint(f, g, x, x, tol)
						if err != nil {
							t.Fatal(err)
						}
						if p.Measure > eps {
							floatOver++
						}
						if s == Violated {
							t.Errorf("seed %d, c %v, %v, eps %v at x %v: violated (float measure %v, enclosure [%v, %v])",
								seed, c, norm, eps, x, p.Measure, p.MeasureLo, p.MeasureHi)
						}
					}
					if exact > 0 {
						eps := outward.Down(exact)
						if _, s, _ := CheckPoint(f, g, x, x, spec.Tolerance{Norm: norm, Eps: []float64{eps}}); s == Holds {
							t.Errorf("seed %d, c %v, %v, eps one ulp below: holds at x %v", seed, c, norm, x)
						}
					}
				}
			}
		}
	}
	if floatOver == 0 {
		t.Error("no case where float64 alone would have said violated: the test does not test")
	}
	t.Logf("%d cases with a float64 measure past eps", floatOver)
}

// TestDecidePermutationNeverViolated decides exact permutations at
// epsilons down to one ulp, unaligned, under a node limit: the verdict
// may be Holds or Unknown, never Violated.
func TestDecidePermutationNeverViolated(t *testing.T) {
	opts := DefaultOptions()
	opts.MaxNodes, opts.Workers = 40, 1
	box := spec.Box{Lo: []float64{-1, -1, -1}, Hi: []float64{1, 1, 1}}
	for seed := range uint64(3) {
		f, g := permutedPair(t, seed, 0)
		for _, tol := range []spec.Tolerance{
			{Norm: spec.Norm2, Eps: []float64{2.220446049250313e-16}},
			{Norm: spec.NormInf, Eps: []float64{outward.Tiny}},
			{Norm: spec.PerOutput, Eps: []float64{0x1p-52, 0x1p-50}},
		} {
			res, err := Decide(context.Background(), f, g, spec.Inputs{Box: box}, tol, &opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status == Violated {
				t.Errorf("seed %d, %v %v: violated at %+v", seed, tol.Norm, tol.Eps, res.Counterexample)
			}
			if res.Tolerance.String() != tol.String() || res.Inputs.Box.Dim() != 3 {
				t.Errorf("seed %d: the result carries %v over %v, want %v over the box", seed, res.Tolerance, res.Inputs.Box, tol)
			}
		}
	}
}

// TestCheckPointFloat32 checks that a point carries the float32
// evaluation beside the float64 one.
func TestCheckPointFloat32(t *testing.T) {
	f, g := permutedPair(t, 1, 0.5)
	p, s, err := CheckPoint(f, g, []float64{0.25, -0.5, 0.125}, []float64{0.25, -0.5, 0.125}, spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{0.25}})
	if err != nil {
		t.Fatal(err)
	}
	if s != Violated || len(p.F32) != 2 || len(p.G32) != 2 || math.Abs(p.G32[0]-p.F32[0]-0.5) > 1e-4 {
		t.Errorf("status %v, point %+v", s, p)
	}
}
