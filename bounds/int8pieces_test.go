package bounds

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/onnx"
	"github.com/nnbound/nnbound/spec"
)

// TestInt8Pieces measures, on random pieces of the controller's box
// (widths 1/8 and 1/16 of the box) and its worst corner piece, how tight
// the float vs int8 bound of one piece is: the bound (Pair with
// MethodOptimised, Norm2Planar(8), as certify bounds a piece), the
// largest error found by sampling, and what each layer's rounding noise
// adds. NNBOUND_LONG=1 only: it prints a table, it checks only that no
// bound is below an error found.
func TestInt8Pieces(t *testing.T) {
	if os.Getenv("NNBOUND_LONG") == "" {
		t.Skip("NNBOUND_LONG=1 runs it")
	}
	scheme := os.Getenv("NNBOUND_SCHEME")
	if scheme == "" {
		scheme = "perchannel"
	}
	dir := filepath.Join("..", "nn", "onnx", "testdata", "qdq", "controller_relu")
	f, _, err := onnx.Read(filepath.Join(dir, "controller_relu.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	fq, _, err := onnx.Read(filepath.Join(dir, "controller_relu_int8_"+scheme+".onnx"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 5))
	pieces := []spec.Box{{Lo: []float64{0.875, -1, -1, 0.875}, Hi: []float64{1, -0.875, -0.875, 1}}}
	for p := range 200 {
		w := 0.25
		if p%2 == 1 {
			w = 0.125
		}
		b := spec.Box{Lo: make([]float64, 4), Hi: make([]float64, 4)}
		for i := range 4 {
			b.Lo[i] = -1 + rng.Float64()*(2-w)
			b.Hi[i] = b.Lo[i] + w
		}
		pieces = append(pieces, b)
	}
	opts := Options{Method: MethodOptimised}
	var ratios [2][]float64
	var bs []float64
	fmt.Printf("%-5s %-9s %-9s %-6s | %-8s %-8s %-8s %-8s %-8s | %-8s %-8s\n",
		"w", "bound", "found", "ratio", "-in", "-l1", "-l2", "-out", "nonoise", "outbox", "margin16")
	for p, b := range pieces {
		in := spec.Inputs{Box: b, Pairing: spec.SameInput}
		bound, box, m16 := pieceBound(t, f, fq, in, opts, -1)
		found := sampledError(f, fq, b, rng, 3000)
		if bound < found {
			t.Errorf("piece %d: bound %g below the error found %g", p, bound, found)
		}
		var drop [5]float64
		for k := range 5 {
			v, _, _ := pieceBound(t, f, fq, in, opts, k)
			drop[k] = bound - v
		}
		w := b.Hi[0] - b.Lo[0]
		ratios[min(p, 1)] = append(ratios[min(p, 1)], bound/found)
		if p > 0 {
			bs = append(bs, bound)
		}
		if p < 30 || p == len(pieces)-1 {
			fmt.Printf("%-5.3g %-9.5f %-9.5f %-6.2f | %-8.4f %-8.4f %-8.4f %-8.4f %-8.4f | %-8.5f %-8.5f\n",
				w, bound, found, bound/found, drop[0], drop[1], drop[2], drop[3], drop[4], box, m16)
		}
	}
	r := ratios[1]
	slices.Sort(r)
	slices.Sort(bs)
	above := 0
	for _, v := range bs {
		if v > 0.084 {
			above++
		}
	}
	fmt.Printf("corner ratio %.3f; random pieces: median ratio %.3f, max %.3f; bound median %.4f, 90%% %.4f, max %.4f, %d of %d above 0.084\n",
		ratios[0][0], r[len(r)/2], r[len(r)-1], bs[len(bs)/2], bs[len(bs)*9/10], bs[len(bs)-1], above, len(bs))
}

// pieceBound returns the Norm2Planar(8) bound of the pair on in, the
// 2-norm of the per-output enclosures, and Norm2Planar(16), with the
// rounding noise of lowered layer zero set to zero (all layers for 4, none
// for -1: an experiment, not a bound).
func pieceBound(t *testing.T, f, fq *nn.Network, in spec.Inputs, opts Options, zero int) (float64, float64, float64) {
	t.Helper()
	m1, m2, err := lowerPair(f, fq, 0)
	if err != nil {
		t.Fatal(err)
	}
	if zero >= 0 {
		noise := make([][]float64, len(m2.noise))
		for k, r := range m2.noise {
			if r != nil && (zero == k || zero == 4) {
				r = make([]float64, len(r))
			}
			noise[k] = r
		}
		m2.noise = noise
	}
	pb, err := propagatePair(context.Background(), m1, m2, in, opts)
	if err != nil {
		t.Fatal(err)
	}
	v, err := pb.Norm2Planar(8)
	if err != nil {
		t.Fatal(err)
	}
	v16, err := pb.Norm2Planar(16)
	if err != nil {
		t.Fatal(err)
	}
	return v, pb.Norm2(), v16
}

// sampledError returns the largest ||fq(x) - f(x)||_2 over n random
// points of b and its corners.
func sampledError(f, fq *nn.Network, b spec.Box, rng *rand.Rand, n int) float64 {
	d := b.Dim()
	worst := 0.0
	x := make([]float64, d)
	for k := range n + 1<<d {
		for i := range d {
			if k < 1<<d {
				x[i] = b.Lo[i]
				if k>>i&1 == 1 {
					x[i] = b.Hi[i]
				}
			} else {
				x[i] = b.Lo[i] + rng.Float64()*(b.Hi[i]-b.Lo[i])
			}
		}
		y, _ := f.Eval(x)
		yq, _ := fq.Eval(x)
		s := 0.0
		for j := range y {
			s += (y[j] - yq[j]) * (y[j] - yq[j])
		}
		worst = max(worst, math.Sqrt(s))
	}
	return worst
}
