// Package nn holds feed-forward networks of dense and convolutional layers
// and their float64 evaluation.
//
// A Network maps an input x^0 = x through layers
//
//	x^{k+1} = act_k(W^k x^k + b^k),   k = 0, ..., L-1,
//
// where W^k has one row per output neuron of layer k. A convolutional layer
// holds W^k as a structured map (Conv2D, Layer.Conv) applied by loops over
// its kernel, never as a matrix; Layer.MulVec, MulTransVec and their
// siblings are where its consumers apply it. The networks of the
// paper (Li, Drummond, Duncan, L4DC 2021) have activations on every layer but
// the last, whose activation is Identity; nothing here requires that.
//
// Readers for concrete file formats live in sub-packages (nn/onnx, nn/nnet,
// nn/jsonnet); nn/modelfile picks the reader for a file. This package
// imports nothing of nnbound's.
package nn

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// ErrDimension reports a shape mismatch between layers, inputs or networks.
var ErrDimension = errors.New("dimension mismatch")

// ErrNotFinite reports a NaN or infinite weight, bias or input.
var ErrNotFinite = errors.New("value is not finite")

// Layer is one dense layer y = Act(W x + B), or, with quantisers,
// y = Post(Act(Pre(W x + B))) (see Quantiser; nil means none). A
// structured layer has a convolution Conv in place of W (W is nil): its
// linear map is applied by loops over the kernel (MulVec, MulTransVec).
type Layer struct {
	W    *mat.Dense // out x in; nil when Conv is set
	Conv *Conv2D
	B    []float64 // length out
	Act  Activation
	// Pre quantises the pre-activation W x + B, Post the layer's output:
	// the re-quantisation of an int8 model's every layer. Both are
	// optional.
	Pre, Post *Quantiser
	// Int, if not nil, records that W and B are integers times scales,
	// as an int8 model stores them (informational: see IntParams).
	Int *IntParams
}

// In returns the layer's input size.
func (l Layer) In() int {
	if l.Conv != nil {
		return l.Conv.In()
	}
	_, c := l.W.Dims()
	return c
}

// Out returns the layer's output size.
func (l Layer) Out() int {
	if l.Conv != nil {
		return l.Conv.Out()
	}
	r, _ := l.W.Dims()
	return r
}

// Network is a feed-forward network of dense layers, with an optional
// quantiser on its input (nil: none).
type Network struct {
	Layers []Layer
	Input  *Quantiser
}

// InputSize returns the number of inputs of n.
func (n *Network) InputSize() int { return n.Layers[0].In() }

// OutputSize returns the number of outputs of n.
func (n *Network) OutputSize() int { return n.Layers[len(n.Layers)-1].Out() }

// Validate checks that n has at least one layer, that consecutive layers
// chain, that each bias matches its weight matrix, that every activation is
// well-formed, and that all parameters are finite. The error names the layer.
func (n *Network) Validate() error {
	if n == nil || len(n.Layers) == 0 {
		return fmt.Errorf("nn: network has no layers: %w", ErrDimension)
	}
	for k, l := range n.Layers {
		if err := l.validateLinear(); err != nil {
			return fmt.Errorf("nn: layer %d: %w", k, err)
		}
		r, c := l.Out(), l.In()
		if len(l.B) != r {
			return fmt.Errorf("nn: layer %d: %d biases for %d outputs: %w", k, len(l.B), r, ErrDimension)
		}
		if k > 0 && c != n.Layers[k-1].Out() {
			return fmt.Errorf("nn: layer %d takes %d inputs but layer %d has %d outputs: %w",
				k, c, k-1, n.Layers[k-1].Out(), ErrDimension)
		}
		// The weights are read in place: At's checks cost more than the
		// test, and bounds.Pair validates its networks on every call.
		var data []float64
		stride := 0
		if l.W != nil {
			raw := l.W.RawMatrix()
			data, stride = raw.Data, raw.Stride
		}
		for i := range r {
			if l.W != nil {
				for j, v := range data[i*stride : i*stride+c] {
					if v-v != 0 { // NaN or infinite
						return fmt.Errorf("nn: layer %d weight (%d,%d) is %v: %w", k, i, j, v, ErrNotFinite)
					}
				}
			}
			if v := l.B[i]; math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("nn: layer %d bias %d is %v: %w", k, i, v, ErrNotFinite)
			}
		}
		if err := l.Act.Validate(); err != nil {
			return fmt.Errorf("nn: layer %d: %w", k, err)
		}
	}
	return n.validateQuantisers()
}

// Eval returns n(x). It returns an error if len(x) is not n.InputSize().
func (n *Network) Eval(x []float64) ([]float64, error) {
	if len(x) != n.InputSize() {
		return nil, fmt.Errorf("nn: input has %d values, network takes %d: %w", len(x), n.InputSize(), ErrDimension)
	}
	h := x
	if n.Input != nil {
		h = append([]float64(nil), x...)
		n.Input.applyAll(h)
	}
	for _, l := range n.Layers {
		h = l.apply(h)
	}
	return h, nil
}

// apply returns Act(W h + B) in a new slice.
func (l Layer) apply(h []float64) []float64 {
	return l.applyTo(make([]float64, 0, l.Out()), h)
}

// applyTo appends Post(Act(Pre(W h + B))) to dst and returns it.
func (l Layer) applyTo(dst, h []float64) []float64 {
	if l.Conv != nil {
		return l.applyConv(dst, h)
	}
	raw := l.W.RawMatrix()
	for i := range raw.Rows {
		row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
		s := l.B[i]
		for j, w := range row {
			s += w * h[j]
		}
		dst = append(dst, l.finish(i, s))
	}
	return dst
}

// finish returns Post(Act(Pre(s))) for the pre-activation s of neuron i.
func (l Layer) finish(i int, s float64) float64 {
	if l.Pre != nil {
		s = l.Pre.Apply(i, s)
	}
	y := l.Act.Apply(s)
	if l.Post != nil {
		y = l.Post.Apply(i, y)
	}
	return y
}

// Clone returns a deep copy of n.
func (n *Network) Clone() *Network {
	c := &Network{Layers: make([]Layer, len(n.Layers)), Input: n.Input.clone()}
	for k, l := range n.Layers {
		c.Layers[k] = Layer{Conv: l.Conv.Clone(), B: append([]float64(nil), l.B...), Act: l.Act,
			Pre: l.Pre.clone(), Post: l.Post.clone(), Int: l.Int.clone()}
		if l.W != nil {
			c.Layers[k].W = mat.DenseCopyOf(l.W)
		}
	}
	return c
}

// FormatSizes formats layer sizes (Network.Sizes) as "5-50-50-5".
func FormatSizes(s []int) string {
	parts := make([]string, len(s))
	for i, n := range s {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, "-")
}

// ErrNotComparable reports two networks whose input or output sizes
// differ.
var ErrNotComparable = errors.New("they cannot be compared")

// Sized is a model with input and output sizes: a *Network or a *Graph.
type Sized interface {
	InputSize() int
	OutputSize() int
}

// CheckComparable reports two models, chains or graphs, named pa and pb,
// whose input or output sizes differ (ErrNotComparable).
func CheckComparable(pa string, a Sized, pb string, b Sized) error {
	if a.InputSize() != b.InputSize() || a.OutputSize() != b.OutputSize() {
		return fmt.Errorf("%s has %s and %s but %s has %d and %d: %w",
			pa, plural(a.InputSize(), "input"), plural(a.OutputSize(), "output"), pb, b.InputSize(), b.OutputSize(), ErrNotComparable)
	}
	return nil
}

// plural returns "1 input" or "n inputs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
