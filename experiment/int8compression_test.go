package experiment

import (
	"errors"
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// TestInt8 makes the int8 compression calibrated on the box (asked for
// the core's input count) and on samples (the box never asked), each the
// copy quantise.Int8 makes of the ranges Calibrate returns, and passes
// the box's error on.
func TestInt8(t *testing.T) {
	f := randnet.Paper(1, 1, 2, 10, 1)
	box := spec.Box{Lo: []float64{-1}, Hi: []float64{1}}
	xs := [][]float64{{-1}, {0.2}, {1}}
	o := quantise.DefaultInt8Options()
	errBox := errors.New("no box")
	for _, c := range []struct {
		name string
		xs   [][]float64
	}{{"box", nil}, {"samples.json", xs}} {
		asked := 0
		comp := Int8(o, c.name, c.xs, func(n int) (spec.Box, error) {
			asked = n
			return box, nil
		})
		if want := o.String() + ", calibrated on " + c.name; comp.What != want || comp.ApplyGraph != nil {
			t.Errorf("%s: What %q, want %q; graph form %v", c.name, comp.What, want, comp.ApplyGraph != nil)
		}
		got, err := comp.Apply(f)
		if err != nil {
			t.Fatal(err)
		}
		if (c.xs == nil) != (asked == 1) {
			t.Errorf("%s: box asked for %d inputs", c.name, asked)
		}
		r, err := Calibrate(f, c.xs, box)
		if err != nil {
			t.Fatal(err)
		}
		want, err := quantise.Int8(f, r, o)
		if err != nil {
			t.Fatal(err)
		}
		if !nn.Equal(got, want) {
			t.Errorf("%s: the copy differs from quantise.Int8's", c.name)
		}
	}
	_, err := Int8(o, "box", nil, func(int) (spec.Box, error) { return spec.Box{}, errBox }).Apply(f)
	if !errors.Is(err, errBox) {
		t.Errorf("box error: %v", err)
	}
}
