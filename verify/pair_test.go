package verify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/vnnlib"
)

// pairText is a one-input property lo REL Y_g - Y_f REL hi on [0, 1].
func pairText(out string) string {
	return `(vnnlib-version <2.0>)
(declare-network f (declare-input X_f real [1]) (declare-output Y_f real [1]))
(declare-network g (isomorphic-to f) (declare-input X_g real [1]) (declare-output Y_g real [1]))
(assert (and (>= X_f[0] 0.0) (<= X_f[0] 1.0)))
(assert (== X_f[0] X_g[0]))
` + out + "\n"
}

func TestDecidePair(t *testing.T) {
	// f(x) = x, g(x) = relu(x) + 0.1: the difference is 0.1 on the box.
	f := &nn.Network{Layers: []nn.Layer{nn.AffineLayer(mat.NewDense(1, 1, []float64{1}), []float64{0})}}
	g := &nn.Network{Layers: []nn.Layer{
		{W: mat.NewDense(1, 1, []float64{1}), B: []float64{0}, Act: nn.Activation{Kind: nn.ReLU}},
		nn.AffineLayer(mat.NewDense(1, 1, []float64{1}), []float64{0.1}),
	}}
	for _, c := range []struct {
		out  string
		want Status
		err  error
	}{
		{"(assert (and (<= Y_g[0] (+ Y_f[0] 0.2)) (>= Y_g[0] (+ Y_f[0] 0.05))))", Holds, nil},
		{"(assert (and (<= Y_g[0] (+ Y_f[0] 0.3)) (>= Y_g[0] (+ Y_f[0] 0.15))))", Violated, nil},
		{"(assert (and (<= Y_g[0] (+ Y_f[0] 0.2)) (>= Y_g[0] (- Y_f[0] 0.2))))", Holds, nil},
		{"(assert (and (<= Y_g[0] (+ Y_f[0] 0.05)) (>= Y_g[0] (- Y_f[0] 0.05))))", Violated, nil},
		{"(assert (and (< Y_g[0] (+ Y_f[0] 0.2)) (> Y_g[0] (- Y_f[0] 0.2))))", Holds, nil},
		{"(assert (<= Y_g[0] (+ Y_f[0] 0.2)))", Unknown, ErrPairUnsupported},
	} {
		p, err := vnnlib.ReadPair(strings.NewReader(pairText(c.out)), "t.vnnlib")
		if err != nil {
			t.Fatal(err)
		}
		res, err := DecidePair(context.Background(), f, g, p, nil)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("%s: error %v, want %v", c.out, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.out, err)
		}
		if res.Status != c.want {
			t.Errorf("%s: %v, want %v", c.out, res.Status, c.want)
		}
		if res.Status == Violated {
			// The counterexample is on g itself, and violates the property as read.
			x := res.Counterexample.X
			yf, _ := f.Eval(x)
			yg, _ := g.Eval(x)
			if bad, _ := p.Violated(yf, yg); !bad || fmt.Sprint(yg) != fmt.Sprint(res.Counterexample.G) {
				t.Errorf("%s: counterexample %+v does not violate the property", c.out, res.Counterexample)
			}
		}
	}
}
