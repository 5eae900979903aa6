package verify

import (
	"context"
	"slices"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/spec"
)

// TestSearchStopsWithContext checks that the root's search (attacker.search)
// stops once ctx is done: with a context cancelled already it evaluates
// nothing and returns the box's lower corner, where a search of the
// background context finds a larger error elsewhere. A search that ignored
// ctx ran to its end past the deadline and a signal (verify digits_cnn vs
// its int8 copy, --epsilon 0.6 --timeout 5: 53 s).
func TestSearchStopsWithContext(t *testing.T) {
	f := randnet.Paper(3, 4, 2, 10, 2)
	g := randnet.Paper(4, 4, 2, 10, 2)
	in := spec.Inputs{Box: spec.Box{Lo: []float64{-1, -1, -1, -1}, Hi: []float64{1, 1, 1, 1}}}
	a := &attacker{f: f, g: g, in: in, tol: spec.Tolerance{Norm: spec.PerOutput, Eps: []float64{1}}}
	open := []int{0, 1}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	x, _ := a.search(done, in.Box.Lo, in.Box.Hi, open, 0, 1)
	if !slices.Equal(x, in.Box.Lo) {
		t.Errorf("cancelled: searched to %v, want the lower corner %v", x, in.Box.Lo)
	}
	x, _ = a.search(context.Background(), in.Box.Lo, in.Box.Hi, open, 0, 1)
	if slices.Equal(x, in.Box.Lo) {
		t.Errorf("not cancelled: the search stayed at the lower corner %v", x)
	}
}
