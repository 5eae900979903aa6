package verify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

func TestDecideProperty(t *testing.T) {
	// f(x) = x, g(x) = relu(x) + 0.1: the difference is 0.1 on the box.
	f := &nn.Network{Layers: []nn.Layer{nn.AffineLayer(mat.NewDense(1, 1, []float64{1}), []float64{0})}}
	g := &nn.Network{Layers: []nn.Layer{
		{W: mat.NewDense(1, 1, []float64{1}), B: []float64{0}, Act: nn.Activation{Kind: nn.ReLU}},
		nn.AffineLayer(mat.NewDense(1, 1, []float64{1}), []float64{0.1}),
	}}
	inf := math.Inf(1)
	for _, c := range []struct {
		out  spec.OutputBound
		want Status
		err  error
	}{
		{spec.OutputBound{Lo: 0.05, Hi: 0.2}, Holds, nil},
		{spec.OutputBound{Lo: 0.15, Hi: 0.3}, Violated, nil},
		{spec.OutputBound{Lo: -0.2, Hi: 0.2}, Holds, nil},
		{spec.OutputBound{Lo: -0.05, Hi: 0.05}, Violated, nil},
		{spec.OutputBound{Lo: -0.2, Hi: 0.2, StrictLo: true, StrictHi: true}, Holds, nil},
		{spec.OutputBound{Lo: -inf, Hi: 0.2}, Unknown, ErrPairUnsupported},
		{spec.OutputBound{K: 1, Lo: -0.2, Hi: 0.2}, Unknown, nn.ErrDimension},
	} {
		// lo REL g - f REL hi on [0, 1], the same input.
		p := &spec.Property{Box: spec.Box{Lo: []float64{0}, Hi: []float64{1}}, Same: true, Outputs: []spec.OutputBound{c.out}}
		// The chains, and the same networks as graphs (DecidePropertyGraph).
		for _, graphs := range []bool{false, true} {
			var res *Result
			var err error
			if graphs {
				res, err = DecidePropertyGraph(context.Background(), f.Graph(), g.Graph(), p, nil)
			} else {
				res, err = DecideProperty(context.Background(), f, g, p, nil)
			}
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Errorf("%+v (graphs %v): error %v, want %v", c.out, graphs, err, c.err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%+v (graphs %v): %v", c.out, graphs, err)
			}
			if res.Status != c.want {
				t.Errorf("%+v (graphs %v): %v, want %v", c.out, graphs, res.Status, c.want)
			}
			if res.Status == Violated {
				// The counterexample is on g itself, and violates the property as read.
				x := res.Counterexample.X
				yf, _ := f.Eval(x)
				yg, _ := g.Eval(x)
				if c.out.Holds(yg[0]-yf[0]) || fmt.Sprint(yg) != fmt.Sprint(res.Counterexample.G) {
					t.Errorf("%+v (graphs %v): counterexample %+v does not violate the property", c.out, graphs, res.Counterexample)
				}
			}
		}
	}
}
