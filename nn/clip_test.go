package nn

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func TestClip(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name       string
		lo, hi     []float64
		wantLayers int
		wantAct    ActivationKind // activation of the first layer
	}{
		{"uniform finite", []float64{-1, -1, -1}, []float64{2, 2, 2}, 1, HardTanh},
		{"uniform relu", []float64{0, 0}, []float64{inf, inf}, 1, ReLU},
		{"uniform none", []float64{-inf, -inf}, []float64{inf, inf}, 1, Identity},
		{"uniform constant", []float64{0.5, 0.5}, []float64{0.5, 0.5}, 1, Identity},
		{"uniform lower", []float64{-2, -2}, []float64{inf, inf}, 2, ReLU},
		{"uniform upper", []float64{-inf, -inf}, []float64{3, 3}, 2, ReLU},
		{"per-coordinate finite", []float64{0, -3.14, -3.14, 100, 0}, []float64{60760, 3.14, 3.14, 1200, 1200}, 2, HardTanh},
		{"finite with constant", []float64{-1, 2, 0}, []float64{1, 2, 5}, 2, HardTanh},
		{"mixed", []float64{-1, -inf, 0.5, -inf, 3, 7}, []float64{1, 2, inf, inf, 3, inf}, 2, ReLU},
		{"single max", []float64{0.25}, []float64{inf}, 2, ReLU},
		{"single min", []float64{-inf}, []float64{-0.75}, 2, ReLU},
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			layers, err := Clip(tc.lo, tc.hi)
			if err != nil {
				t.Fatal(err)
			}
			if len(layers) != tc.wantLayers || layers[0].Act.Kind != tc.wantAct {
				t.Fatalf("got %d layers starting with %v, want %d starting with %v",
					len(layers), layers[0].Act.Kind, tc.wantLayers, tc.wantAct)
			}
			net := &Network{Layers: layers}
			if err := net.Validate(); err != nil {
				t.Fatal(err)
			}
			n := len(tc.lo)
			scale := 1.0
			for i := range n {
				for _, v := range []float64{tc.lo[i], tc.hi[i]} {
					if !math.IsInf(v, 0) {
						scale = max(scale, 2*math.Abs(v))
					}
				}
			}
			check := func(x []float64) {
				t.Helper()
				got := mustEval(t, layers, x)
				for i := range n {
					want := min(max(x[i], tc.lo[i]), tc.hi[i])
					if !closeTo(got[i], want, 1e-14) {
						t.Fatalf("x=%v coordinate %d: got %v, want %v", x, i, got[i], want)
					}
				}
			}
			for range 200 {
				check(randVec(rng, n, scale))
			}
			// The ends themselves and points just beyond them.
			for _, pick := range []func(i int) float64{
				func(i int) float64 { return tc.lo[i] },
				func(i int) float64 { return tc.hi[i] },
			} {
				x := make([]float64, n)
				for i := range x {
					if x[i] = pick(i); math.IsInf(x[i], 0) {
						x[i] = math.Copysign(1e6, x[i])
					}
				}
				check(x)
			}
		})
	}
}

func TestClipFusesWithNeighbours(t *testing.T) {
	// The NNet pattern: clip, normalise (x - mean)/range, then a ReLU layer.
	rng := rand.New(rand.NewPCG(7, 8))
	lo := []float64{0, -3.141593, -3.141593, 100, 0}
	hi := []float64{60760, 3.141593, 3.141593, 1200, 1200}
	mean := []float64{19791.091, 0, 0, 650, 600}
	rng2 := []float64{60261, 6.28318530718, 6.28318530718, 1100, 1200}
	clip, err := Clip(lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	scale, shift := make([]float64, 5), make([]float64, 5)
	for i := range 5 {
		scale[i] = 1 / rng2[i]
		shift[i] = -mean[i] / rng2[i]
	}
	norm, err := ScaleShift(scale, shift)
	if err != nil {
		t.Fatal(err)
	}
	hidden := randLayer(rng, 7, 5, Activation{Kind: ReLU})
	layers := append(append(clip, norm), hidden)
	fused, err := FuseLayers(layers)
	if err != nil {
		t.Fatal(err)
	}
	if len(fused) != 2 {
		t.Fatalf("got %d layers, want 2", len(fused))
	}
	for range 100 {
		x := make([]float64, 5)
		for i := range x {
			x[i] = lo[i] + (hi[i]-lo[i])*(1.4*rng.Float64()-0.2)
		}
		sameOutputs(t, fused, layers, x)
	}
}

func TestClipErrors(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	tests := []struct {
		name   string
		lo, hi []float64
		want   error
	}{
		{"empty", nil, nil, ErrDimension},
		{"lengths", []float64{0}, []float64{1, 2}, ErrDimension},
		{"inverted", []float64{0, 2}, []float64{1, 1}, ErrBounds},
		{"nan lo", []float64{nan}, []float64{1}, ErrBounds},
		{"nan hi", []float64{0}, []float64{nan}, ErrBounds},
		{"lo +inf", []float64{inf}, []float64{inf}, ErrBounds},
		{"hi -inf", []float64{-inf}, []float64{-inf}, ErrBounds},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Clip(tc.lo, tc.hi); !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}
