package nn

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Op is one operation of a Graph. The operations are a closed set, which
// bound propagation switches on: *Affine, Act, *Quantise, Add, Concat,
// *MaxPool, and for transformers Unary and Mul.
type Op interface {
	// Eval sets dst to the operation's output for the inputs in, in
	// float64 with the operator's ONNX semantics.
	Eval(dst []float64, in [][]float64)
	// Describe names the operation for messages and inspect.
	Describe() string
}

// Affine is y = M x + B, M a structured or dense linear map (Linear); B
// nil means no bias. Int, if not nil, records that M's weights (a matrix
// or a kernel, per tensor or per output channel) and B are integers times
// scales, as an int8 model stores them (see IntParams).
type Affine struct {
	M   Linear
	B   []float64
	Int *IntParams
}

// Eval sets dst = M x + B; a dense map (or a row map) adds, as
// Layer.AffineTo, the products to the bias in input order, so a chain's
// graph evaluates to the bit as the chain.
func (a *Affine) Eval(dst []float64, in [][]float64) {
	if d, ok := a.M.(DenseMap); ok && a.B != nil {
		Layer{W: d.W, B: a.B}.AffineTo(dst, in[0])
		return
	}
	if r, ok := a.M.(*RowMap); ok && a.B != nil {
		r.affineTo(dst, in[0], a.B)
		return
	}
	a.M.Apply(dst, in[0])
	for i, b := range a.B {
		dst[i] += b
	}
}

// Describe names the map: "conv 3x3 16->32", "dense 64->10", ...
func (a *Affine) Describe() string {
	switch m := a.M.(type) {
	case *Conv2D:
		return fmt.Sprintf("conv %dx%d %d->%d", m.KH, m.KW, m.InC, m.OutC)
	case DenseMap:
		return fmt.Sprintf("dense %d->%d", m.In(), m.Out())
	case *RowMap:
		r, c := m.W.Dims()
		return fmt.Sprintf("rows %dx(%d->%d)", m.Rows, c, r)
	case *AvgPool2D:
		return fmt.Sprintf("avgpool %dx%d/%d", m.KH, m.KW, m.Stride[0])
	case *Gather:
		return fmt.Sprintf("gather %d->%d", m.In(), m.Out())
	case *Scale:
		return fmt.Sprintf("scale %d", m.In())
	case *Sparse:
		return fmt.Sprintf("sparse %d->%d", m.In(), m.Out())
	}
	return fmt.Sprintf("linear %d->%d", a.M.In(), a.M.Out())
}

// Act applies an activation to every value.
type Act struct{ Act Activation }

// Eval sets dst_i = act(x_i).
func (a Act) Eval(dst []float64, in [][]float64) {
	for i, v := range in[0] {
		dst[i] = a.Act.Apply(v)
	}
}

// Describe returns the activation with its parameters.
func (a Act) Describe() string { return a.Act.Describe() }

// Quantise applies ONNX's QuantizeLinear then DequantizeLinear with the
// same parameters to every value (Quantiser).
type Quantise struct{ Q *Quantiser }

// Eval sets dst_i = q(x_i).
func (q *Quantise) Eval(dst []float64, in [][]float64) {
	for i, v := range in[0] {
		dst[i] = q.Q.Apply(i, v)
	}
}

// Describe returns "quantise uint8 s=... z=...".
func (q *Quantise) Describe() string { return "quantise " + q.Q.String() }

// Add is the sum of two computed values of the same size, y = a + b, or
// with Negate their difference y = a - b (a residual join, ONNX Add and
// Sub of two tensors).
type Add struct{ Negate bool }

// Eval sets dst = in[0] + in[1] (or in[0] - in[1]).
func (a Add) Eval(dst []float64, in [][]float64) {
	x, y := in[0], in[1]
	if a.Negate {
		for i := range dst {
			dst[i] = x[i] - y[i]
		}
		return
	}
	for i := range dst {
		dst[i] = x[i] + y[i]
	}
}

// Describe returns "add" or "sub".
func (a Add) Describe() string {
	if a.Negate {
		return "sub"
	}
	return "add"
}

// Concat joins its inputs end to end (along the outermost axis of a
// sample, the channels of CHW; the ONNX reader adds a Gather for other
// axes).
type Concat struct{}

// Eval copies the inputs one after the other into dst.
func (Concat) Eval(dst []float64, in [][]float64) {
	off := 0
	for _, x := range in {
		off += copy(dst[off:], x)
	}
}

// Describe returns "concat".
func (Concat) Describe() string { return "concat" }

// opInputs returns how many inputs op takes (-1: two or more).
func opInputs(op Op) int {
	switch op.(type) {
	case Add, Mul:
		return 2
	case Concat:
		return -1
	}
	return 1
}

// outSize returns the output size op gives for inputs of the sizes in, or
// an error naming the mismatch.
func outSize(op Op, in []int) (int, error) {
	switch o := op.(type) {
	case *Affine:
		if err := o.M.Validate(); err != nil {
			return 0, err
		}
		if o.M.In() != in[0] {
			return 0, fmt.Errorf("nn: %s takes %d values, given %d: %w", o.Describe(), o.M.In(), in[0], ErrDimension)
		}
		if o.B != nil && len(o.B) != o.M.Out() {
			return 0, fmt.Errorf("nn: %s has %d biases for %d outputs: %w", o.Describe(), len(o.B), o.M.Out(), ErrDimension)
		}
		return o.M.Out(), finiteAll("bias", o.B)
	case Act:
		return in[0], o.Act.Validate()
	case *Quantise:
		return in[0], o.Q.Validate(in[0])
	case Unary:
		return in[0], o.Validate()
	case Add, Mul:
		if in[0] != in[1] {
			return 0, fmt.Errorf("nn: %s of %d and %d values: %w", o.Describe(), in[0], in[1], ErrDimension)
		}
		return in[0], nil
	case Concat:
		n := 0
		for _, s := range in {
			n += s
		}
		return n, nil
	case *MaxPool:
		if err := o.Validate(); err != nil {
			return 0, err
		}
		if o.In() != in[0] {
			return 0, fmt.Errorf("nn: %s takes %d values, given %d: %w", o.Describe(), o.In(), in[0], ErrDimension)
		}
		return o.Out(), nil
	}
	return 0, fmt.Errorf("nn: unknown operation %T", op)
}

// cloneOp returns a deep copy of op's parameters.
func cloneOp(op Op) Op {
	switch o := op.(type) {
	case *Affine:
		return &Affine{M: cloneLinear(o.M), B: slices.Clone(o.B), Int: o.Int.clone()}
	case *Quantise:
		return &Quantise{o.Q.clone()}
	case *MaxPool:
		c := *o
		return &c
	}
	return op // value types without slices
}

// cloneLinear returns a deep copy of m.
func cloneLinear(m Linear) Linear {
	switch l := m.(type) {
	case DenseMap:
		return DenseMap{mat.DenseCopyOf(l.W)}
	case *RowMap:
		return &RowMap{W: mat.DenseCopyOf(l.W), Rows: l.Rows}
	case *Conv2D:
		return l.Clone()
	case *AvgPool2D:
		c := *l
		return &c
	case *Gather:
		return &Gather{N: l.N, Index: slices.Clone(l.Index)}
	case *Scale:
		return &Scale{slices.Clone(l.S)}
	case *Sparse:
		return l.clone()
	}
	return m
}

// Weights returns the weights of a's map, in place: a dense matrix's
// entries (row-major; a row map's one block), a convolution's kernel or a
// scaling's factors; nil for maps without parameters (a selection, an
// average pool).
func (a *Affine) Weights() []float64 {
	switch m := a.M.(type) {
	case DenseMap:
		return denseWeights(m.W)
	case *RowMap:
		return denseWeights(m.W)
	case *Conv2D:
		return m.Kernel
	case *Scale:
		return m.S
	}
	return nil
}

// ModelBias returns a's bias as the model holds it: for a convolution
// whose bias is the same at every position of each output channel (as a
// model's is; B stores it once per output), one value per channel, else
// B itself.
func (a *Affine) ModelBias() []float64 {
	c, ok := a.M.(*Conv2D)
	if !ok || len(a.B) != c.Out() {
		return a.B
	}
	per := c.OutH * c.OutW
	out := make([]float64, c.OutC)
	for ch := range out {
		row := a.B[ch*per : (ch+1)*per]
		for _, v := range row {
			if v != row[0] {
				return a.B
			}
		}
		out[ch] = row[0]
	}
	return out
}

// denseWeights returns w's entries row by row, in place.
func denseWeights(w *mat.Dense) []float64 {
	raw := w.RawMatrix()
	if raw.Stride != raw.Cols {
		panic("nn: Affine.Weights of a matrix view") // matrices of nn are never views
	}
	return raw.Data[:raw.Rows*raw.Cols]
}
