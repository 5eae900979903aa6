package verify

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/bounds/boundstest"
	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/nn/onnx"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// TestJudgeTop1 checks the judgement of enclosed outputs, a tie counting
// as a disagreement.
func TestJudgeTop1(t *testing.T) {
	for _, c := range []struct {
		name               string
		flo, fhi, glo, ghi []float64
		want               Status
	}{
		{"agree", []float64{1, 0}, []float64{1.1, 0.1}, []float64{2, 0}, []float64{2, 0}, Holds},
		{"differ", []float64{1, 0}, []float64{1, 0}, []float64{0, 1}, []float64{0, 1}, Violated},
		{"tie in f", []float64{1, 1}, []float64{1, 1}, []float64{1, 0}, []float64{1, 0}, Violated},
		{"near tie", []float64{1, 0.9}, []float64{1.2, 1}, []float64{1, 0}, []float64{1, 0}, Unknown},
		{"g unsure", []float64{1, 0}, []float64{1, 0}, []float64{0, -0.1}, []float64{0.2, 0.1}, Unknown},
		{"three classes", []float64{0, 1, 2}, []float64{0, 1, 2}, []float64{0, 3, 2}, []float64{0, 3, 2}, Violated},
	} {
		if got := judgeTop1(c.flo, c.fhi, c.glo, c.ghi); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// digitsPair returns the digits MLP of nn/onnx/testdata/qdq, its PyTorch
// int8 per-channel copy and the digits test images.
func digitsPair(t *testing.T) (f, g *nn.Network, xs [][]float64) {
	t.Helper()
	return readPair(t, "../nn/onnx/testdata/qdq/digits_relu/", "digits_relu.onnx", "digits_relu_int8_perchannel.onnx", "test_set.json")
}

// cnnPair returns the digits CNN of testdata/graphs, its PyTorch int8
// copy and the digits test images.
func cnnPair(t *testing.T) (f, g *nn.Network, xs [][]float64) {
	t.Helper()
	return readPair(t, "../testdata/graphs/", "digits_cnn.onnx", "digits_cnn_int8_torch.onnx", "digits_test.json")
}

// readPair reads the networks f and g and the inputs of the test set
// data, all in dir.
func readPair(t *testing.T, dir, fName, gName, data string) (f, g *nn.Network, xs [][]float64) {
	t.Helper()
	f, _, err := onnx.Read(dir + fName)
	if err != nil {
		t.Fatal(err)
	}
	g, _, err = onnx.Read(dir + gName)
	if err != nil {
		t.Fatal(err)
	}
	var ts struct{ Inputs [][]float64 }
	b, err := os.ReadFile(dir + data)
	if err == nil {
		err = json.Unmarshal(b, &ts)
	}
	if err != nil {
		t.Fatal(err)
	}
	return f, g, ts.Inputs
}

// ball returns the L-inf ball of radius r about x, clipped to [0, 1].
func ball(x []float64, r float64) spec.Box { return spec.Ball(x, r, 0, 1) }

// checkTop1Result checks res independently of the search: a
// counterexample lies in the box and CheckTop1 proves it again; with
// Holds, no sampled point or box corner is a disagreement.
func checkTop1Result(t *testing.T, name string, f, g *nn.Network, box spec.Box, res *Top1Result, rng *rand.Rand) {
	t.Helper()
	switch res.Status {
	case Violated:
		x := res.Counterexample.X
		if !box.Contains(x) {
			t.Fatalf("%s: counterexample outside the box", name)
		}
		if _, s, err := CheckTop1(f, g, x, x); err != nil || s != Violated {
			t.Fatalf("%s: counterexample checks %v, %v", name, s, err)
		}
	case Holds:
		x := make([]float64, box.Dim())
		for p := range 300 {
			for i := range x {
				switch {
				case p%3 == 0: // a corner
					x[i] = box.Lo[i]
					if rng.IntN(2) == 1 {
						x[i] = box.Hi[i]
					}
				default:
					x[i] = box.Lo[i] + rng.Float64()*(box.Hi[i]-box.Lo[i])
				}
			}
			if _, s, err := CheckTop1(f, g, x, x); err != nil || s == Violated {
				t.Fatalf("%s: certified agreement, but the networks disagree at %v (%v)", name, x, err)
			}
		}
	}
}

// TestTop1Digits decides a few balls of the digits MLP against its int8
// copy and checks every verdict independently.
func TestTop1Digits(t *testing.T) {
	f, g, xs := digitsPair(t)
	rng := rand.New(rand.NewPCG(3, 4))
	seen := map[Status]int{}
	for _, i := range []int{0, 1, 7, 37, 38} {
		for _, r := range []float64{2.0 / 255, 8.0 / 255} {
			box := ball(xs[i], r)
			o := DefaultOptions()
			o.MaxNodes = 40
			res, err := DecideTop1(context.Background(), f, g, spec.Inputs{Box: box}, &o)
			if err != nil {
				t.Fatal(err)
			}
			seen[res.Status]++
			checkTop1Result(t, "digits", f, g, box, res, rng)
		}
	}
	if seen[Holds] == 0 || seen[Violated] == 0 {
		t.Errorf("verdicts %v: want both agreement and disagreement among the balls", seen)
	}
}

// TestTop1RandomPairs checks the verdicts on random networks and
// perturbed copies, where the search splits.
func TestTop1RandomPairs(t *testing.T) {
	seen := map[Status]int{}
	for seed := range uint64(12) {
		rng := rand.New(rand.NewPCG(seed, 9))
		f, err := randnet.New(rng, []int{3, 8, 8, 4})
		if err != nil {
			t.Fatal(err)
		}
		g := boundstest.Perturb(rng, f, 0.05)
		x := []float64{rng.Float64(), rng.Float64(), rng.Float64()}
		box := ball(x, 0.05+0.1*rng.Float64())
		o := DefaultOptions()
		o.MaxNodes = 300
		res, err := DecideTop1(context.Background(), f, g, spec.Inputs{Box: box}, &o)
		if err != nil {
			t.Fatal(err)
		}
		seen[res.Status]++
		checkTop1Result(t, "random", f, g, box, res, rng)
	}
	t.Logf("verdicts %v", seen)
	if seen[Holds] == 0 {
		t.Errorf("verdicts %v: want some agreement proved", seen)
	}
}

// TestTop1QuantisedInput decides random pairs where g reads f's input
// quantised to 3 fractional bits, checking each verdict at sampled
// inputs x with g fed q(x).
func TestTop1QuantisedInput(t *testing.T) {
	seen := map[Status]int{}
	for seed := range uint64(10) {
		rng := rand.New(rand.NewPCG(seed, 11))
		f, err := randnet.New(rng, []int{2, 8, 8, 3})
		if err != nil {
			t.Fatal(err)
		}
		g := boundstest.Perturb(rng, f, 0.02)
		x := []float64{rng.Float64(), rng.Float64()}
		in := spec.Inputs{Box: ball(x, 0.02+0.2*rng.Float64()), Pairing: spec.QuantisedInput,
			Quant: quantise.Format{FracBits: 3, Rounding: quantise.Nearest}}
		o := DefaultOptions()
		o.MaxNodes = 300
		res, err := DecideTop1(context.Background(), f, g, in, &o)
		if err != nil {
			t.Fatal(err)
		}
		seen[res.Status]++
		switch res.Status {
		case Violated:
			p := res.Counterexample
			if _, s, err := CheckTop1(f, g, p.X, in.X2(p.X)); err != nil || s != Violated || !slices.Equal(p.XG, in.X2(p.X)) {
				t.Fatalf("seed %d: counterexample checks %v, %v", seed, s, err)
			}
		case Holds:
			for range 500 {
				p := make([]float64, 2)
				for i := range p {
					p[i] = in.Box.Lo[i] + rng.Float64()*(in.Box.Hi[i]-in.Box.Lo[i])
				}
				if _, s, err := CheckTop1(f, g, p, in.X2(p)); err != nil || s == Violated {
					t.Fatalf("seed %d: certified, but the networks disagree at %v", seed, p)
				}
			}
		}
	}
	t.Logf("verdicts %v", seen)
	if seen[Holds] == 0 || seen[Violated] == 0 {
		t.Errorf("verdicts %v: want both", seen)
	}
}

// smallCNN returns a random 1x8x8 -> conv 3x3 (4 channels) -> ReLU ->
// dense 10 network and its copy with weights on 4 fractional bits and
// activations on 6.
func smallCNN(t *testing.T, seed uint64) (f, g *nn.Network) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 2))
	conv := &nn.Conv2D{InC: 1, InH: 8, InW: 8, OutC: 4, OutH: 8, OutW: 8, KH: 3, KW: 3, Stride: [2]int{1, 1},
		Dil: [2]int{1, 1}, Pad: [2]int{1, 1}, Groups: 1, Kernel: make([]float64, 36)}
	for i := range conv.Kernel {
		conv.Kernel[i] = rng.NormFloat64() / 3
	}
	w := mat.NewDense(10, 256, nil)
	for i := range 10 {
		for j := range 256 {
			w.Set(i, j, rng.NormFloat64()/16)
		}
	}
	f = &nn.Network{Layers: []nn.Layer{{Conv: conv, B: make([]float64, 256), Act: nn.Activation{Kind: nn.ReLU}}, nn.AffineLayer(w, make([]float64, 10))}}
	qo := quantise.DefaultOptions()
	qo.Weights.FracBits, qo.ActFracBits = 4, 6
	g, err := quantise.Network(f, qo)
	if err != nil {
		t.Fatal(err)
	}
	return f, g
}

// TestTop1Convolutional decides balls about digits images for a small
// convolutional network and its fixed-point copy, checking every verdict.
func TestTop1Convolutional(t *testing.T) {
	_, _, xs := digitsPair(t)
	f, g := smallCNN(t, 1)
	rng := rand.New(rand.NewPCG(5, 6))
	seen := map[Status]int{}
	for i := range 12 {
		box := ball(xs[i], 2.0/255)
		o := DefaultOptions()
		o.MaxNodes = 100
		res, err := DecideTop1(context.Background(), f, g, spec.Inputs{Box: box}, &o)
		if err != nil {
			t.Fatal(err)
		}
		seen[res.Status]++
		checkTop1Result(t, "cnn", f, g, box, res, rng)
	}
	t.Logf("verdicts %v", seen)
	if seen[Holds] == 0 {
		t.Errorf("verdicts %v: want some agreement proved", seen)
	}
}

// TestTop1Workers: the verdict and node count do not depend on the
// number of workers.
func TestTop1Workers(t *testing.T) {
	f, g, xs := digitsPair(t)
	in := spec.Inputs{Box: ball(xs[37], 2.0/255)}
	var first *Top1Result
	for _, w := range []int{1, 2, 4} {
		o := DefaultOptions()
		o.MaxNodes, o.Workers, o.Batch = 30, w, 8
		res, err := DecideTop1(context.Background(), f, g, in, &o)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res
			continue
		}
		if res.Status != first.Status || res.Nodes != first.Nodes || res.Open != first.Open {
			t.Errorf("%d workers: %v after %d nodes, open %v; 1 worker: %v after %d, open %v",
				w, res.Status, res.Nodes, res.Open, first.Status, first.Nodes, first.Open)
		}
	}
}

// TestTop1Errors: bad arguments are errors, each naming what is wrong.
func TestTop1Errors(t *testing.T) {
	f, g, xs := digitsPair(t)
	in := spec.Inputs{Box: ball(xs[0], 0.01)}
	one, err := randnet.New(rand.New(rand.NewPCG(1, 1)), []int{64, 4, 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		f, g *nn.Network
		in   spec.Inputs
		want error
	}{
		{"nil network", f, nil, in, nn.ErrDimension},
		{"one output", one, one, in, nn.ErrDimension},
		{"short box", f, g, spec.Inputs{Box: spec.Box{Lo: []float64{0}, Hi: []float64{1}}}, nn.ErrDimension},
		{"independent", f, g, spec.Inputs{Box: in.Box, Pairing: spec.Independent}, spec.ErrInputs},
	} {
		if _, err := DecideTop1(context.Background(), c.f, c.g, c.in, nil); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}
