package nnet_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/nnbound/nnbound/nn/nnet"
	"github.com/nnbound/nnbound/nn/onnx"
	"github.com/nnbound/nnbound/quantise"
)

// TestWrapInt8 checks that the raw-units network around an int8 copy of
// an NNet core keeps the copy as it is: every layer's integers, and the
// input quantiser applied to the normalised input, so that it computes
// the de-normalised copy of the normalised input at every sampled raw
// input (clipped ones included); and that, the normalisation of the
// tiny file being dyadic, it is written to ONNX and read back unchanged.
func TestWrapInt8(t *testing.T) {
	core, info, err := nnet.Read("testdata/tiny.nnet", nnet.Options{Core: true})
	if err != nil {
		t.Fatal(err)
	}
	r := quantise.Ranges{Input: [2]float64{-1, 1}, Pre: [][2]float64{{-3, 3}, {-2, 4}}}
	q, err := quantise.Int8(core, r, quantise.Int8Options{Bits: 8})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := info.Wrap(q)
	if err != nil {
		t.Fatal(err)
	}
	ints := 0
	for _, l := range raw.Layers {
		if l.Int != nil {
			ints++
		}
	}
	if ints != len(q.Layers) {
		t.Errorf("%d layers of the wrapped copy keep their integers, want %d", ints, len(q.Layers))
	}
	var buf bytes.Buffer
	if err := onnx.Write(&buf, raw); err != nil {
		t.Fatalf("writing the wrapped int8 copy: %v", err)
	}
	back, _, err := onnx.Decode(buf.Bytes(), "wrapped.onnx")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		x := []float64{-2 + 4*rng.Float64(), -1 + 6*rng.Float64()} // beyond the clipping too
		xn, err := info.NormaliseInput(x)
		if err != nil {
			t.Fatal(err)
		}
		yn, err := q.Eval(xn)
		if err != nil {
			t.Fatal(err)
		}
		want := info.DenormaliseOutput(yn)
		for _, n := range []struct {
			name string
			f    interface {
				Eval([]float64) ([]float64, error)
			}
		}{{"wrapped", raw}, {"read back", back}} {
			got, err := n.f.Eval(x)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s copy at %v: %v, want the de-normalised copy's %v", n.name, x, got, want)
				}
			}
		}
	}
}
