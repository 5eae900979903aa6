package nn

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// The linear part of a layer, dense (W) or structured (Conv): the points
// where evaluation and bound propagation apply it.

// validateLinear reports a layer with neither or both of W and Conv, or a
// malformed convolution.
func (l Layer) validateLinear() error {
	switch {
	case l.W == nil && l.Conv == nil:
		return fmt.Errorf("nn: layer has no weight matrix: %w", ErrDimension)
	case l.W != nil && l.Conv != nil:
		return fmt.Errorf("nn: layer has both a weight matrix and a convolution: %w", ErrDimension)
	case l.Conv != nil:
		return l.Conv.Validate()
	}
	return nil
}

// MulVec sets dst = W x, the layer's linear part without its bias (dst
// has Out() values, x In()).
func (l Layer) MulVec(dst, x []float64) {
	if l.Conv != nil {
		l.Conv.Apply(dst, x)
		return
	}
	raw := l.W.RawMatrix()
	for i := range raw.Rows {
		s := 0.0
		for j, w := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			s += w * x[j]
		}
		dst[i] = s
	}
}

// MulTransVec sets dst = W^T y (dst has In() values, y Out()).
func (l Layer) MulTransVec(dst, y []float64) {
	if l.Conv != nil {
		l.Conv.ApplyTransposed(dst, y)
		return
	}
	raw := l.W.RawMatrix()
	clear(dst[:raw.Cols])
	for i := range raw.Rows {
		v := y[i]
		if v == 0 {
			continue
		}
		for j, w := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			dst[j] += v * w
		}
	}
}

// AffineTo sets dst = W h + B with Eval's arithmetic: per output the bias,
// then the products in input order; for a structured layer the
// convolution, then the bias.
func (l Layer) AffineTo(dst, h []float64) {
	if l.Conv != nil {
		l.Conv.Apply(dst, h)
		for i := range dst[:l.Out()] {
			dst[i] += l.B[i]
		}
		return
	}
	raw := l.W.RawMatrix()
	for i := range raw.Rows {
		s := l.B[i]
		for j, w := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			s += w * h[j]
		}
		dst[i] = s
	}
}

// MulAbsVec sets dst = |W| x, with |W| the elementwise magnitude of the
// layer's weights.
func (l Layer) MulAbsVec(dst, x []float64) {
	if l.Conv != nil {
		l.Conv.Abs().Apply(dst, x)
		return
	}
	raw := l.W.RawMatrix()
	for i := range raw.Rows {
		s := 0.0
		for j, w := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			s += math.Abs(w) * x[j]
		}
		dst[i] = s
	}
}

// AddAbsColumnSums adds to dst[j] the sum over i of |W_ij|, for every
// input j (the influence of input j on the layer).
func (l Layer) AddAbsColumnSums(dst []float64) {
	if l.Conv != nil {
		ones, col := make([]float64, l.Out()), make([]float64, l.In())
		for i := range ones {
			ones[i] = 1
		}
		l.Conv.Abs().ApplyTransposed(col, ones)
		for j, v := range col {
			dst[j] += v
		}
		return
	}
	raw := l.W.RawMatrix()
	for r := range raw.Rows {
		for j, v := range raw.Data[r*raw.Stride : r*raw.Stride+raw.Cols] {
			dst[j] += math.Abs(v)
		}
	}
}

// AddRow adds scale times row i of W to dst (In() values).
func (l Layer) AddRow(dst []float64, i int, scale float64) {
	if l.Conv != nil {
		l.Conv.AddRow(dst, i, scale)
		return
	}
	for j, w := range l.W.RawRowView(i) {
		dst[j] += scale * w
	}
}

// Matrix returns the layer's weight matrix: W, or the dense matrix of its
// convolution (Conv2D.Dense, Out()*In() entries: for small layers only).
func (l Layer) Matrix() *mat.Dense {
	if l.Conv != nil {
		return l.Conv.Dense()
	}
	return l.W
}

// applyConv appends Post(Act(Pre(K h + B))) to dst for a structured layer.
func (l Layer) applyConv(dst, h []float64) []float64 {
	n := len(dst)
	dst = append(dst, make([]float64, l.Out())...)
	y := dst[n:]
	l.AffineTo(y, h)
	for i := range y {
		y[i] = l.finish(i, y[i])
	}
	return dst
}

// Structured reports whether some layer of n is structured (a
// convolution), so that consumers that need dense weight matrices can
// refuse it by name (ErrStructured).
func (n *Network) Structured() bool {
	for _, l := range n.Layers {
		if l.Conv != nil {
			return true
		}
	}
	return false
}

// RequireDense returns an error wrapping ErrStructured, naming user, if n
// has structured layers.
func (n *Network) RequireDense(user string) error {
	if n != nil && n.Structured() {
		return fmt.Errorf("nn: networks with convolutional layers are not handled by %s: %w", user, ErrStructured)
	}
	return nil
}

// ErrStructured reports a network with structured (convolutional) layers
// given to a method that needs dense weight matrices.
var ErrStructured = errors.New("structured layers")

// Densify returns n with every structured layer replaced by its dense
// matrix if that has at most maxEntries entries, and an error wrapping
// ErrStructured naming the first layer whose matrix is larger. n is not
// modified; unchanged layers are shared.
func Densify(n *Network, maxEntries int) (*Network, error) {
	if !n.Structured() {
		return n, nil
	}
	out := &Network{Layers: append([]Layer(nil), n.Layers...), Input: n.Input}
	for k, l := range out.Layers {
		if l.Conv == nil {
			continue
		}
		if l.Out() > maxEntries/l.In() {
			return nil, fmt.Errorf("nn: layer %d, a %dx%d matrix: %w", k, l.Out(), l.In(), ErrStructured)
		}
		out.Layers[k].W, out.Layers[k].Conv = l.Conv.Dense(), nil
	}
	return out, nil
}
