package experiment

import (
	"testing"

	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/quantise"
	"github.com/nnbound/nnbound/spec"
)

// TestCalibrate checks that the ranges calibrated on the box by bound
// propagation contain those seen on sample inputs of the box, and that
// samples, when given, are used.
func TestCalibrate(t *testing.T) {
	f := randnet.Paper(1, 1, 2, 10, 1)
	box := spec.Box{Lo: []float64{-1}, Hi: []float64{1}}
	xs := [][]float64{{-1}, {-0.3}, {0.2}, {1}}
	onBox, err := Calibrate(f, nil, box)
	if err != nil {
		t.Fatal(err)
	}
	onSamples, err := Calibrate(f, xs, box)
	if err != nil {
		t.Fatal(err)
	}
	want, err := quantise.SampleRanges(f, xs)
	if err != nil {
		t.Fatal(err)
	}
	if onSamples.Input != want.Input || len(onSamples.Pre) != len(want.Pre) {
		t.Fatalf("Calibrate on samples = %v, want %v", onSamples, want)
	}
	for i, r := range want.Pre {
		if onSamples.Pre[i] != r {
			t.Errorf("layer %d: on samples %v, want %v", i, onSamples.Pre[i], r)
		}
		if b := onBox.Pre[i]; b[0] > r[0] || b[1] < r[1] {
			t.Errorf("layer %d: the box's range %v does not contain the samples' %v", i, b, r)
		}
	}
}
