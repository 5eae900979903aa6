package quantise

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
)

// TestActFracBits checks that ActFracBits rounds every hidden layer's
// output to the grid (and not the last layer's), and that a width out of
// range is an error.
func TestActFracBits(t *testing.T) {
	net := randnet.Paper(1, 2, 2, 6, 1)
	q, err := Network(net, Options{Weights: Format{FracBits: 8}, Biases: Format{FracBits: 8}, ActFracBits: 3})
	if err != nil {
		t.Fatal(err)
	}
	for k, l := range q.Layers {
		if (l.Post != nil) != (k < len(q.Layers)-1) {
			t.Fatalf("layer %d: output quantiser %v", k, l.Post)
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for range 100 {
		x := []float64{2*rng.Float64() - 1, 2*rng.Float64() - 1}
		h := x
		for k, l := range q.Layers[:len(q.Layers)-1] {
			out := make([]float64, l.Out())
			for i := range out {
				s := l.B[i]
				for j, w := range l.W.RawRowView(i) {
					s += w * h[j]
				}
				out[i] = l.Post.Apply(i, l.Act.Apply(s))
				if v := out[i] * 8; v != float64(int64(v)) {
					t.Fatalf("layer %d output %v is not a multiple of 1/8", k, out[i])
				}
			}
			h = out
		}
	}
	if _, err := Network(net, Options{Weights: Format{FracBits: 8}, Biases: Format{FracBits: 8}, ActFracBits: 60}); !errors.Is(err, ErrFormat) {
		t.Fatalf("ActFracBits 60: %v", err)
	}
}
