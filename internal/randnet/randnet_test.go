package randnet

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/nn"
)

func TestNewShapesAndActivations(t *testing.T) {
	tests := []struct {
		name  string
		sizes []int
	}{
		{"one hidden", []int{1, 10, 1}},
		{"four hidden", []int{1, 10, 10, 10, 10, 1}},
		{"wide input", []int{3, 5, 7, 2}},
		{"no hidden", []int{2, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			net, err := New(rand.New(rand.NewPCG(1, 2)), tc.sizes)
			if err != nil {
				t.Fatal(err)
			}
			if err := net.Validate(); err != nil {
				t.Fatal(err)
			}
			got := net.Sizes()
			if len(got) != len(tc.sizes) {
				t.Fatalf("sizes %v, want %v", got, tc.sizes)
			}
			for i := range got {
				if got[i] != tc.sizes[i] {
					t.Fatalf("sizes %v, want %v", got, tc.sizes)
				}
			}
			for k, l := range net.Layers {
				want := nn.ReLU
				if k == len(net.Layers)-1 {
					want = nn.Identity
				}
				if l.Act.Kind != want {
					t.Errorf("layer %d activation %v, want %v", k, l.Act.Kind, want)
				}
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	for _, sizes := range [][]int{nil, {3}, {1, 0, 1}, {1, -2}} {
		if _, err := New(rand.New(rand.NewPCG(1, 2)), sizes); !errors.Is(err, nn.ErrDimension) {
			t.Errorf("New(%v) error %v, want ErrDimension", sizes, err)
		}
	}
}

func TestPaperIsSeededAndStandardNormal(t *testing.T) {
	a, b := Paper(7, 1, 3, 10, 1), Paper(7, 1, 3, 10, 1)
	if !nn.Equal(a, b) {
		t.Fatal("same seed gave different networks")
	}
	if nn.Equal(a, Paper(8, 1, 3, 10, 1)) {
		t.Fatal("different seeds gave the same network")
	}
	// Moments over many parameters: mean near 0, variance near 1.
	var n, s, s2 float64
	for seed := range uint64(20) {
		for _, l := range Paper(seed, 1, 3, 10, 1).Layers {
			r, c := l.W.Dims()
			for i := range r {
				for j := range c {
					v := l.W.At(i, j)
					n, s, s2 = n+1, s+v, s2+v*v
				}
				v := l.B[i]
				n, s, s2 = n+1, s+v, s2+v*v
			}
		}
	}
	mean, variance := s/n, s2/n-(s/n)*(s/n)
	if math.Abs(mean) > 0.05 || math.Abs(variance-1) > 0.05 {
		t.Errorf("mean %.3f variance %.3f over %v draws, want 0 and 1", mean, variance, n)
	}
}
