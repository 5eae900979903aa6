package certjob

import (
	"bytes"
	"context"
	"testing"

	"github.com/nnbound/nnbound/certify"
	"github.com/nnbound/nnbound/internal/randnet"
	"github.com/nnbound/nnbound/spec"
)

// TestBoundShowing checks that, off a terminal, BoundShowing writes
// nothing and certifies as Bound does.
func TestBoundShowing(t *testing.T) {
	f1, f2 := randnet.Paper(1, 1, 1, 4, 1), randnet.Paper(2, 1, 1, 4, 1)
	box := spec.Box{Lo: []float64{-1}, Hi: []float64{1}}
	j := Default()
	j.Method = certify.MethodPropagation
	var stderr bytes.Buffer
	got, err := j.BoundShowing(context.Background(), f1, f2, box, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	want, err := j.Bound(context.Background(), f1, f2, box)
	if err != nil {
		t.Fatal(err)
	}
	if stderr.Len() != 0 || j.Log != nil {
		t.Errorf("BoundShowing wrote %q or kept a log", stderr.String())
	}
	if got.Certified() != want.Certified() || got.Bound != want.Bound {
		t.Errorf("BoundShowing: certified %v bound %v; Bound: %v %v", got.Certified(), got.Bound, want.Certified(), want.Bound)
	}
}
