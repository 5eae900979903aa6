package bounds

import (
	"context"
	"fmt"
	"math"

	"github.com/nnbound/nnbound/internal/outward"
	"github.com/nnbound/nnbound/nn"
	"github.com/nnbound/nnbound/spec"
)

// Net holds sound bounds for one network on an input box: In[i] encloses
// input i, Pre[k][i] the pre-activation xi^k_i = (W^k x^k + b^k)_i of
// neuron i of layer k (k = 0 is the first layer), and Post[k][i] its output
// act_k(xi^k_i). Post[len(Post)-1] encloses the network's outputs.
type Net struct {
	In        []Interval
	Pre, Post [][]Interval
}

// Unstable returns, per layer, the number of neurons whose pre-activation
// bound straddles a kink of the layer's activation (0 for ReLU, leaky ReLU
// and ELU; Lo or Hi for hard-tanh); smooth activations (tanh, sigmoid) and
// Identity have none. f must be the network whose bounds n holds, layer
// for layer: the bounds of a quantised network are those of its lowered
// form, with more layers than f, and an error wrapping nn.ErrDimension
// says so.
func (n *Net) Unstable(f *nn.Network) ([]int, error) {
	if len(n.Pre) != len(f.Layers) {
		return nil, fmt.Errorf("bounds: unstable neurons: bounds of %d layers for a network of %d: %w", len(n.Pre), len(f.Layers), nn.ErrDimension)
	}
	out := make([]int, len(n.Pre))
	for k, pre := range n.Pre {
		if len(pre) != f.Layers[k].Out() {
			return nil, fmt.Errorf("bounds: unstable neurons: layer %d has %d bounds for %d neurons: %w", k, len(pre), f.Layers[k].Out(), nn.ErrDimension)
		}
		for _, x := range pre {
			if straddlesKink(f.Layers[k].Act, x) {
				out[k]++
			}
		}
	}
	return out, nil
}

// straddlesKink reports whether x contains a kink of a in its interior.
func straddlesKink(a nn.Activation, x Interval) bool {
	switch a.Kind {
	case nn.ReLU, nn.LeakyReLU, nn.ELU:
		return x.Straddles()
	case nn.HardTanh:
		return (x.Lo < a.Lo && a.Lo < x.Hi) || (x.Lo < a.Hi && a.Hi < x.Hi)
	}
	return false
}

// Single returns sound bounds for f on box.
func Single(f *nn.Network, box spec.Box, opts Options) (*Net, error) {
	return SingleContext(context.Background(), f, box, opts)
}

// SingleContext is Single stopped by ctx: once ctx is done it returns
// ctx's error (wrapped) before the next layer of a symbolic pass, or the
// next piece of a split box, is bounded: a pass so cut yields no bounds.
func SingleContext(ctx context.Context, f *nn.Network, box spec.Box, opts Options) (*Net, error) {
	if err := checkSingle(f, box, opts); err != nil {
		return nil, err
	}
	m, err := lowerSingle(f, opts.RequantSlack)
	if err != nil {
		return nil, err
	}
	if opts.Split > 1 {
		return singleSplit(ctx, m, box, opts)
	}
	return singleNet(ctx, m, box, opts)
}

// singleNet returns the bounds of m on box by opts.Method (no splitting),
// or ctx's error once ctx is done: looked at before every layer of a
// symbolic pass (symbolicState), before an interval pass.
func singleNet(ctx context.Context, m lowered, box spec.Box, opts Options) (*Net, error) {
	if opts.Method >= MethodSymbolic {
		s, err := symbolicState(ctx, m, boxIntervals(box), opts.optimiser())
		if err != nil {
			return nil, err
		}
		return s.net, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("bounds: stopped: %w", err)
	}
	return intervalNet(m, boxIntervals(box)), nil
}

// checkSingle validates the arguments of Single (and Linear).
func checkSingle(f *nn.Network, box spec.Box, opts Options) error {
	if err := checkNetwork(f, box.Dim(), "network"); err != nil {
		return err
	}
	if err := box.Validate(); err != nil {
		return err
	}
	return opts.Validate()
}

// checkNetwork validates f and that it takes dim inputs.
func checkNetwork(f *nn.Network, dim int, name string) error {
	if f == nil {
		return fmt.Errorf("bounds: %s is nil: %w", name, nn.ErrDimension)
	}
	if err := f.Validate(); err != nil {
		return fmt.Errorf("bounds: %s: %w", name, err)
	}
	if f.InputSize() != dim {
		return fmt.Errorf("bounds: %s takes %d inputs, box has %d: %w", name, f.InputSize(), dim, nn.ErrDimension)
	}
	return nil
}

// intervalNet propagates the input box in through m by interval arithmetic.
func intervalNet(m lowered, in []Interval) *Net {
	f := m.f
	net := &Net{In: in, Pre: make([][]Interval, len(f.Layers)), Post: make([][]Interval, len(f.Layers))}
	x := in
	for k, l := range f.Layers {
		net.Pre[k] = affine(l, x, m.layerNoise(k))
		net.Post[k] = make([]Interval, len(net.Pre[k]))
		for i, p := range net.Pre[k] {
			net.Post[k][i] = actImage(l.Act, p)
		}
		m.tightenPost(k, net.Pre[k], net.Post[k])
		x = net.Post[k]
	}
	return net
}

// affine returns an enclosure of {W x + b + e : x in the box x, |e| <= r}
// for layer l (r nil: e = 0).
func affine(l nn.Layer, x []Interval, r []float64) []Interval {
	if l.Conv != nil {
		return affineConv(l, x, r)
	}
	raw := l.W.RawMatrix()
	out := make([]Interval, raw.Rows)
	for i := range out {
		row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
		lo, hi := l.B[i], l.B[i]
		absLo, absHi := math.Abs(l.B[i]), math.Abs(l.B[i])
		for j, w := range row {
			a, b := ordered(w*x[j].Lo, w*x[j].Hi)
			lo += a
			hi += b
			absLo += math.Abs(a)
			absHi += math.Abs(b)
		}
		out[i] = Interval{outward.DownBy(lo, outward.DotErr(absLo, raw.Cols)), outward.UpBy(hi, outward.DotErr(absHi, raw.Cols))}
		if r != nil {
			out[i] = Interval{outward.SubDown(out[i].Lo, r[i]), outward.AddUp(out[i].Hi, r[i])}
		}
	}
	return out
}
