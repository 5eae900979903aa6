package onnx

import (
	"fmt"
	"io"
	"slices"

	"github.com/nnbound/nnbound/nn"
)

// WriteGraph writes g as an ONNX model (IR version 8, opset 13): input "x"
// of shape [N, g.InputShape...], output "y" of shape [N, n_out], every value
// between them a flat [N, n] tensor, reshaped to [N, C, H, W] around the
// operators that need images:
//
//	Affine   Gemm (dense, transB=1), Conv, AveragePool, Gather (with a Pad
//	         first where it reads zeros) or Mul (a scaling), then Add of
//	         the bias where Gemm and Conv do not take it
//	Act      Relu, LeakyRelu, Tanh, Sigmoid, Elu, Clip (activationNodes)
//	Quantise QuantizeLinear, DequantizeLinear (a scale per value: axis 1)
//	Add      Add or Sub;  Concat  Concat on axis 1;  MaxPool  MaxPool
//
// A graph without quantisers is written with DOUBLE initializers and
// values; one with quantisers in FLOAT, as QuantizeLinear takes float32
// data: then every parameter must be a float32 value (ErrNotWritable).
// Reading the file back gives g's function exactly.
func WriteGraph(w io.Writer, g *nn.Graph) error {
	if err := g.Validate(); err != nil {
		return fmt.Errorf("onnx: %w", err)
	}
	gw := &graphWriter{g: g, elem: Double}
	if slices.ContainsFunc(g.Nodes, func(n nn.Node) bool { _, ok := n.Op.(*nn.Quantise); return ok }) {
		gw.elem = Float
	}
	graph, err := gw.encode()
	if err != nil {
		return fmt.Errorf("onnx: %w", err)
	}
	if _, err := w.Write(encodeModel(graph)); err != nil {
		return fmt.Errorf("onnx: %w", err)
	}
	return nil
}

// graphWriter collects the nodes and initializers of a graph being
// written; elem is the element type of its values.
type graphWriter struct {
	g            *nn.Graph
	elem         DataType
	nodes, inits [][]byte
	k            int // the graph node being written, for names
}

// tensor encodes a parameter tensor in the writer's element type.
func (w *graphWriter) tensor(name string, dims []int64, v []float64) ([]byte, error) {
	if w.elem == Double {
		return encodeTensor(name, dims, v), nil
	}
	for i, x := range v {
		if !isFloat32(x) {
			return nil, fmt.Errorf("%s: value %d (%v) is not a float32 value: %w", name, i, x, ErrNotWritable)
		}
	}
	return encodeFloat32s(name, dims, v), nil
}

// param adds the initializer name_k and returns its name.
func (w *graphWriter) param(stem string, dims []int64, v []float64) (string, error) {
	name := fmt.Sprintf("%s%d", stem, w.k)
	t, err := w.tensor(name, dims, v)
	if err != nil {
		return "", fmt.Errorf("%s: %w", w.g.Label(w.k), err)
	}
	w.inits = append(w.inits, t)
	return name, nil
}

// intParam adds the parameter stem_k: DequantizeLinear of its integers
// when q (its integer scheme, a scale per row of cols values) is not nil,
// an initializer otherwise; it returns the name of the values.
func (w *graphWriter) intParam(stem string, dims []int64, v []float64, cols int, q *nn.Quantiser) (string, error) {
	if q == nil {
		return w.param(stem, dims, v)
	}
	if w.elem != Float {
		return "", fmt.Errorf("%s: integer parameters in a DOUBLE graph: %w", w.g.Label(w.k), ErrNotWritable)
	}
	g := &qdqGraph{}
	name, err := g.dequantised(fmt.Sprintf("%s%d", stem, w.k), dims, v, cols, q)
	if err != nil {
		return "", fmt.Errorf("%s: %w", w.g.Label(w.k), err)
	}
	w.inits = append(w.inits, g.inits...)
	for _, nd := range g.nodes {
		w.nodes = append(w.nodes, encodeNode(nd.op, nd.name, nd.inputs, nd.output, nd.attrs...))
	}
	return name, nil
}

// node adds a node with output stem_k and returns the output's name.
func (w *graphWriter) node(op, stem string, inputs []string, attrs ...[]byte) string {
	out := fmt.Sprintf("%s%d", stem, w.k)
	w.nodes = append(w.nodes, encodeNode(op, out, inputs, out, attrs...))
	return out
}

// encode returns the GraphProto bytes.
func (w *graphWriter) encode() ([]byte, error) {
	names := make([]string, len(w.g.Nodes)+1)
	w.k = 0
	names[0] = "x"
	if len(w.g.InputShape) > 1 {
		names[0] = w.node("Flatten", "xflat", []string{"x"}, encodeIntAttr("axis", 1))
	}
	for k, n := range w.g.Nodes {
		w.k = k
		in := make([]string, len(n.Inputs))
		for i, v := range n.Inputs {
			in[i] = names[v]
		}
		out, err := w.op(n.Op, in, w.g.Shape(n.Inputs[0]))
		if err != nil {
			return nil, err
		}
		names[k+1] = out
	}
	last := names[len(names)-1]
	w.k = len(w.g.Nodes)
	w.nodes = append(w.nodes, encodeNode("Identity", "output", []string{last}, "y"))
	var b []byte
	for _, nd := range w.nodes {
		b = appendMessage(b, 1, nd)
	}
	b = appendString(b, 2, "nnbound")
	for _, t := range w.inits {
		b = appendMessage(b, 5, t)
	}
	b = appendMessage(b, 11, encodeValueInfoShape("x", w.g.InputShape, w.elem))
	b = appendMessage(b, 12, encodeValueInfoType("y", w.g.OutputSize(), w.elem))
	return b, nil
}

// op writes one operation on the values in (the first of shape s) and
// returns the name of its output.
func (w *graphWriter) op(op nn.Op, in []string, s []int) (string, error) {
	switch o := op.(type) {
	case *nn.Affine:
		return w.affine(o, in[0], s)
	case nn.Act:
		return w.act(o.Act, in[0])
	case *nn.Quantise:
		if w.elem != Float {
			return "", fmt.Errorf("%s: a quantiser in a DOUBLE graph: %w", w.g.Label(w.k), ErrNotWritable)
		}
		q := &qdqGraph{}
		h, err := q.quantiser(in[0], fmt.Sprintf("q%d", w.k), o.Q)
		if err != nil {
			return "", fmt.Errorf("%s: %w", w.g.Label(w.k), err)
		}
		w.inits = append(w.inits, q.inits...)
		for _, nd := range q.nodes {
			w.nodes = append(w.nodes, encodeNode(nd.op, nd.name, nd.inputs, nd.output, encodeIntAttr("axis", 1)))
		}
		return h, nil
	case nn.Add:
		if o.Negate {
			return w.node("Sub", "sub", in), nil
		}
		return w.node("Add", "add", in), nil
	case nn.Concat:
		return w.node("Concat", "concat", in, encodeIntAttr("axis", 1)), nil
	case nn.Unary:
		return w.unary(o, in[0])
	case nn.Mul:
		return w.node("Mul", "mul", in), nil
	case *nn.MaxPool:
		return w.pool("MaxPool", &o.Pool2D, in[0], encodeIntsAttr("dilations", int64(o.Dil[0]), int64(o.Dil[1])))
	}
	return "", fmt.Errorf("%s: %w", w.g.Label(w.k), ErrNotWritable)
}

// affine writes M h + B.
func (w *graphWriter) affine(a *nn.Affine, h string, s []int) (string, error) {
	bias := a.B
	var wq, bq *nn.Quantiser
	if a.Int != nil {
		wq, bq = a.Int.Weight, a.Int.Bias
	}
	switch m := a.M.(type) {
	case nn.DenseMap:
		wName, err := w.intParam("W", []int64{int64(m.Out()), int64(m.In())}, a.Weights(), m.In(), wq)
		if err != nil {
			return "", err
		}
		ins := []string{h, wName}
		if bias != nil {
			b, err := w.intParam("b", []int64{int64(m.Out())}, bias, 1, bq)
			if err != nil {
				return "", err
			}
			ins, bias = append(ins, b), nil
		}
		return w.node("Gemm", "gemm", ins, encodeIntAttr("transB", 1)), nil
	case *nn.Conv2D:
		out, rest, err := w.conv(m, h, bias, wq, bq)
		if err != nil {
			return "", err
		}
		h, bias = out, rest
	case *nn.AvgPool2D:
		if m.Dil != [2]int{1, 1} {
			return "", fmt.Errorf("%s: a dilated average pool: %w", w.g.Label(w.k), ErrNotWritable)
		}
		count := int64(0)
		if m.CountPad {
			count = 1
		}
		out, err := w.pool("AveragePool", &m.Pool2D, h, encodeIntAttr("count_include_pad", count))
		if err != nil {
			return "", err
		}
		h = out
	case *nn.Gather:
		out, err := w.gather(m, h)
		if err != nil {
			return "", err
		}
		h = out
	case *nn.Scale:
		f, err := w.param("scale", []int64{int64(len(m.S))}, m.S)
		if err != nil {
			return "", err
		}
		h = w.node("Mul", "mul", []string{h, f})
	case *nn.RowMap:
		if a.Int != nil {
			return "", fmt.Errorf("%s: a row map with integer weights: %w", w.g.Label(w.k), ErrNotWritable)
		}
		out, err := w.rowMap(m, h)
		if err != nil {
			return "", err
		}
		h = out
	case *nn.Sparse:
		out, err := w.sparse(m, h)
		if err != nil {
			return "", err
		}
		h = out
	default:
		return "", fmt.Errorf("%s: %w", w.g.Label(w.k), ErrNotWritable)
	}
	if bias == nil {
		return h, nil
	}
	b, err := w.param("b", []int64{int64(len(bias))}, bias)
	if err != nil {
		return "", err
	}
	return w.node("Add", "biased", []string{h, b}), nil
}

// conv writes Reshape -> Conv -> Flatten of h, with the bias in the Conv
// where it is one per output channel; it returns the output and the bias
// still to add (nil: none). wq and bq are the integer schemes of the
// kernel (per output channel) and the bias, or nil.
func (w *graphWriter) conv(c *nn.Conv2D, h string, bias []float64, wq, bq *nn.Quantiser) (string, []float64, error) {
	end, err := endPads([2]int{c.InH, c.InW}, [2]int{c.OutH, c.OutW}, [2]int{c.KH, c.KW}, c.Stride, c.Dil, c.Pad)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", w.g.Label(w.k), err)
	}
	k, err := w.intParam("W", []int64{int64(c.OutC), int64(c.InC / c.Groups), int64(c.KH), int64(c.KW)}, c.Kernel,
		len(c.Kernel)/c.OutC, wq)
	if err != nil {
		return "", nil, err
	}
	ins := []string{w.image(h, c.InC, c.InH, c.InW), k}
	if perChannel := channelValues(bias, c.OutC); perChannel != nil {
		b, err := w.intParam("b", []int64{int64(c.OutC)}, perChannel, 1, bq)
		if err != nil {
			return "", nil, err
		}
		ins, bias = append(ins, b), nil
	} else if bq != nil {
		return "", nil, fmt.Errorf("%s: integer biases that vary within a channel: %w", w.g.Label(w.k), ErrNotWritable)
	}
	conv := w.node("Conv", "conv", ins,
		encodeIntsAttr("kernel_shape", int64(c.KH), int64(c.KW)),
		encodeIntsAttr("strides", int64(c.Stride[0]), int64(c.Stride[1])),
		encodeIntsAttr("dilations", int64(c.Dil[0]), int64(c.Dil[1])),
		encodeIntsAttr("pads", int64(c.Pad[0]), int64(c.Pad[1]), int64(end[0]), int64(end[1])),
		encodeIntAttr("group", int64(c.Groups)))
	return w.node("Flatten", "convflat", []string{conv}, encodeIntAttr("axis", 1)), bias, nil
}

// channelValues returns the one value per channel of v (c channels of
// equal planes), or nil when v is nil or varies within a channel.
func channelValues(v []float64, c int) []float64 {
	if v == nil {
		return nil
	}
	plane := len(v) / c
	out := make([]float64, c)
	for i, x := range v {
		if x != v[i/plane*plane] {
			return nil
		}
		out[i/plane] = x
	}
	return out
}

// pool writes Reshape -> op (a pooling of geometry p) -> Flatten of h.
func (w *graphWriter) pool(op string, p *nn.Pool2D, h string, attrs ...[]byte) (string, error) {
	end, err := endPads([2]int{p.InH, p.InW}, [2]int{p.OutH, p.OutW}, [2]int{p.KH, p.KW}, p.Stride, p.Dil, p.Pad)
	if err != nil {
		return "", fmt.Errorf("%s: %w", w.g.Label(w.k), err)
	}
	img := w.image(h, p.C, p.InH, p.InW)
	attrs = append(attrs, encodeIntsAttr("kernel_shape", int64(p.KH), int64(p.KW)),
		encodeIntsAttr("strides", int64(p.Stride[0]), int64(p.Stride[1])),
		encodeIntsAttr("pads", int64(p.Pad[0]), int64(p.Pad[1]), int64(end[0]), int64(end[1])))
	pooled := w.node(op, "pool", []string{img}, attrs...)
	return w.node("Flatten", "poolflat", []string{pooled}, encodeIntAttr("axis", 1)), nil
}

// image writes Reshape(h, [-1, c, h, w]).
func (w *graphWriter) image(h string, c, height, width int) string {
	shape := fmt.Sprintf("shape%d", w.k)
	w.inits = append(w.inits, encodeInt64s(shape, []int64{-1, int64(c), int64(height), int64(width)}))
	return w.node("Reshape", "image", []string{h, shape})
}

// gather writes Gather(h, index, axis 1), padding h with one zero first
// when some output reads zero.
func (w *graphWriter) gather(m *nn.Gather, h string) (string, error) {
	idx := make([]int64, len(m.Index))
	zero := false
	for i, j := range m.Index {
		idx[i] = int64(j)
		if j < 0 {
			idx[i], zero = int64(m.N), true
		}
	}
	if zero {
		pads := fmt.Sprintf("pads%d", w.k)
		w.inits = append(w.inits, encodeInt64s(pads, []int64{0, 0, 0, 1}))
		h = w.node("Pad", "padded", []string{h, pads})
	}
	name := fmt.Sprintf("index%d", w.k)
	w.inits = append(w.inits, encodeInt64s(name, idx))
	return w.node("Gather", "gather", []string{h, name}, encodeIntAttr("axis", 1)), nil
}

// act writes an activation of h.
func (w *graphWriter) act(a nn.Activation, h string) (string, error) {
	if w.elem == Float && ((a.Kind == nn.HardTanh && (!isFloat32(a.Lo) || !isFloat32(a.Hi))) ||
		((a.Kind == nn.LeakyReLU || a.Kind == nn.ELU) && !isFloat32(a.Alpha))) {
		return "", fmt.Errorf("%s: parameters that are not float32 values: %w", w.g.Label(w.k), ErrNotWritable)
	}
	for _, n := range activationNodes(a, w.k) {
		if a.Kind == nn.HardTanh && w.elem == Float {
			n.inits = [][]byte{encodeFloat32s(n.inputs[0], nil, []float64{a.Lo}), encodeFloat32s(n.inputs[1], nil, []float64{a.Hi})}
		}
		w.inits = append(w.inits, n.inits...)
		h = w.node(n.op, n.out, append([]string{h}, n.inputs...), n.attrs...)
	}
	return h, nil
}

// endPads returns the padding at the end of each axis that gives out
// positions from n inputs with kernel k, or an error where ONNX's formula
// gives more.
func endPads(n, out, k, stride, dil, pad [2]int) ([2]int, error) {
	var end [2]int
	for ax := range 2 {
		span := (k[ax]-1)*dil[ax] + 1
		end[ax] = max(0, (out[ax]-1)*stride[ax]+span-n[ax]-pad[ax])
		if (n[ax]+pad[ax]+end[ax]-span)/stride[ax]+1 != out[ax] {
			return end, fmt.Errorf("a window of %d outputs along axis %d, fewer than ONNX's: %w", out[ax], ax, ErrNotWritable)
		}
	}
	return end, nil
}

// encodeValueInfoShape returns a ValueInfoProto for a tensor [N, shape...]
// of element type et.
func encodeValueInfoShape(name string, shape []int, et DataType) []byte {
	var dims, tensor, typ []byte
	dims = appendMessage(dims, 1, appendString(nil, 2, "N"))
	for _, d := range shape {
		dims = appendMessage(dims, 1, appendInt(nil, 1, int64(d)))
	}
	tensor = appendInt(tensor, 1, int64(et))
	tensor = appendMessage(tensor, 2, dims)
	typ = appendMessage(typ, 1, tensor)
	return appendMessage(appendString(nil, 1, name), 2, typ)
}
