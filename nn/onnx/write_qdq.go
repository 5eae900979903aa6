package onnx

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/nnbound/nnbound/nn"
)

// Writing quantised networks (nn.Quantiser, nn.IntParams) in the QDQ form
// PyTorch exports: FLOAT (float32) tensors throughout, each quantiser a
// QuantizeLinear / DequantizeLinear pair with FLOAT scale and UINT8 or
// INT8 zero point, and each layer with IntParams a Gemm whose weight is
// DequantizeLinear of an INT8 (or UINT8) initializer, per tensor or per
// output channel (axis 0), and whose bias is DequantizeLinear of an INT32
// initializer. Every value written must be exact in float32 (scales,
// float weights, clip bounds), so that reading the file back gives the
// network bit for bit.

// ErrNotWritable reports a network that the QDQ writer cannot store exactly.
var ErrNotWritable = errors.New("not representable in a QDQ file")

// qdqNode is one node being written; the last node's output is renamed "y".
type qdqNode struct {
	op, name string
	inputs   []string
	output   string
	attrs    [][]byte
}

// qdqGraph collects the nodes and initializers of a QDQ graph.
type qdqGraph struct {
	nodes []qdqNode
	inits [][]byte
}

// encodeQDQGraph returns the GraphProto bytes of the quantised network n.
func encodeQDQGraph(n *nn.Network) ([]byte, error) {
	g := &qdqGraph{}
	h := "x"
	var err error
	if n.Input != nil {
		if h, err = g.quantiser(h, "in", n.Input); err != nil {
			return nil, fmt.Errorf("input quantiser: %w", err)
		}
	}
	for k, l := range n.Layers {
		if h, err = g.layer(h, k, l); err != nil {
			return nil, fmt.Errorf("layer %d: %w", k, err)
		}
	}
	g.nodes[len(g.nodes)-1].output = "y"
	var out []byte
	for _, nd := range g.nodes {
		out = appendMessage(out, 1, encodeNode(nd.op, nd.name, nd.inputs, nd.output, nd.attrs...))
	}
	out = appendString(out, 2, "nnbound")
	for _, t := range g.inits {
		out = appendMessage(out, 5, t)
	}
	out = appendMessage(out, 11, encodeValueInfoType("x", n.InputSize(), Float))
	out = appendMessage(out, 12, encodeValueInfoType("y", n.OutputSize(), Float))
	return out, nil
}

// add appends a node and returns its output name.
func (g *qdqGraph) add(op, name string, inputs []string, attrs ...[]byte) string {
	g.nodes = append(g.nodes, qdqNode{op: op, name: name, inputs: inputs, output: name, attrs: attrs})
	return name
}

// layer writes Gemm, Pre, the activation and Post of layer k on h.
func (g *qdqGraph) layer(h string, k int, l nn.Layer) (string, error) {
	w, b, err := g.params(k, l)
	if err != nil {
		return "", err
	}
	h = g.add("Gemm", fmt.Sprintf("gemm%d", k), []string{h, w, b}, encodeIntAttr("transB", 1))
	if l.Pre != nil {
		if h, err = g.quantiser(h, fmt.Sprintf("pre%d", k), l.Pre); err != nil {
			return "", fmt.Errorf("pre-activation quantiser: %w", err)
		}
	}
	if l.Act.Kind == nn.HardTanh && (!isFloat32(l.Act.Lo) || !isFloat32(l.Act.Hi)) {
		return "", fmt.Errorf("hard-tanh bounds [%v, %v] are not float32 values: %w", l.Act.Lo, l.Act.Hi, ErrNotWritable)
	}
	if (l.Act.Kind == nn.LeakyReLU || l.Act.Kind == nn.ELU) && !isFloat32(l.Act.Alpha) {
		return "", fmt.Errorf("%v alpha %v is not a float32 value: %w", l.Act.Kind, l.Act.Alpha, ErrNotWritable)
	}
	for _, a := range activationNodes(l.Act, k) {
		for _, t := range a.inits {
			g.inits = append(g.inits, t)
		}
		h = g.add(a.op, fmt.Sprintf("%s%d", a.out, k), append([]string{h}, a.inputs...), a.attrs...)
	}
	if l.Act.Kind == nn.HardTanh { // FLOAT bounds, as the data is FLOAT
		lo, hi := fmt.Sprintf("lo%d", k), fmt.Sprintf("hi%d", k)
		g.inits = append(g.inits[:len(g.inits)-2], encodeFloat32s(lo, nil, []float64{l.Act.Lo}),
			encodeFloat32s(hi, nil, []float64{l.Act.Hi}))
	}
	if l.Post != nil {
		if h, err = g.quantiser(h, fmt.Sprintf("post%d", k), l.Post); err != nil {
			return "", fmt.Errorf("output quantiser: %w", err)
		}
	}
	return h, nil
}

// params writes the weight and bias of layer k: dequantised integers when
// the layer has IntParams, FLOAT initializers otherwise.
func (g *qdqGraph) params(k int, l nn.Layer) (w, b string, err error) {
	rows, cols := l.W.Dims()
	flat := make([]float64, 0, rows*cols)
	for i := range rows {
		flat = append(flat, l.W.RawRowView(i)...)
	}
	w, b = fmt.Sprintf("W%d", k), fmt.Sprintf("b%d", k)
	if l.Int == nil {
		for _, p := range [][]float64{flat, l.B} {
			for i, v := range p {
				if !isFloat32(v) {
					return "", "", fmt.Errorf("parameter %d (%v) is not a float32 value and the layer has no integer scheme: %w",
						i, v, ErrNotWritable)
				}
			}
		}
		g.inits = append(g.inits, encodeFloat32s(w, []int64{int64(rows), int64(cols)}, flat),
			encodeFloat32s(b, []int64{int64(rows)}, l.B))
		return w, b, nil
	}
	if w, err = g.dequantised(w, []int64{int64(rows), int64(cols)}, flat, cols, l.Int.Weight); err != nil {
		return "", "", fmt.Errorf("weights: %w", err)
	}
	if l.Int.Bias == nil {
		return "", "", fmt.Errorf("integer weights with float biases: %w", ErrNotWritable)
	}
	if b, err = g.dequantised(b, []int64{int64(rows)}, l.B, 1, l.Int.Bias); err != nil {
		return "", "", fmt.Errorf("biases: %w", err)
	}
	return w, b, nil
}

// dequantised writes DequantizeLinear of the integers K with v = (K - z) s
// (per row of length cols when q has a scale per row), and returns the
// node's output name.
func (g *qdqGraph) dequantised(name string, dims []int64, v []float64, cols int, q *nn.Quantiser) (string, error) {
	typ, err := intType(q)
	if err != nil {
		return "", err
	}
	ints := make([]int64, len(v))
	for i, x := range v {
		s, z := q.At(i / cols)
		k := math.RoundToEven(x/s) + float64(z)
		if k < float64(q.Lo) || k > float64(q.Hi) || (k-float64(z))*s != x {
			return "", fmt.Errorf("value %d (%v) is not an integer in [%d, %d] times its scale %v: %w",
				i, x, q.Lo, q.Hi, s, ErrNotWritable)
		}
		ints[i] = int64(k)
	}
	s, z, err := g.scaleZero(name, q, typ)
	if err != nil {
		return "", err
	}
	g.inits = append(g.inits, encodeInts(name+"_q", dims, typ, ints))
	return g.add("DequantizeLinear", name+"_dq", []string{name + "_q", s, z}, encodeIntAttr("axis", 0)), nil
}

// quantiser writes QuantizeLinear and DequantizeLinear of h with q (per
// axis 1 when q has a scale per value) and returns the output name.
func (g *qdqGraph) quantiser(h, stem string, q *nn.Quantiser) (string, error) {
	typ, err := intType(q)
	if err != nil {
		return "", err
	}
	s, z, err := g.scaleZero(stem, q, typ)
	if err != nil {
		return "", err
	}
	h = g.add("QuantizeLinear", stem+"_q", []string{h, s, z})
	return g.add("DequantizeLinear", stem+"_dq", []string{h, s, z}), nil
}

// scaleZero writes the FLOAT scale and the zero point of q (scalars for a
// per-tensor quantiser) and returns their names.
func (g *qdqGraph) scaleZero(stem string, q *nn.Quantiser, typ DataType) (string, string, error) {
	for i, s := range q.Scale {
		if !isFloat32(s) {
			return "", "", fmt.Errorf("scale %d (%v) is not a float32 value: %w", i, s, ErrNotWritable)
		}
	}
	var dims []int64
	if q.Len() > 1 {
		dims = []int64{int64(q.Len())}
	}
	s, z := stem+"_scale", stem+"_zero"
	g.inits = append(g.inits, encodeFloat32s(s, dims, q.Scale), encodeInts(z, dims, typ, q.Zero))
	return s, z, nil
}

// intType returns the ONNX type whose range is q's.
func intType(q *nn.Quantiser) (DataType, error) {
	switch {
	case q.Lo == nn.Uint8Lo && q.Hi == nn.Uint8Hi:
		return Uint8, nil
	case q.Lo == nn.Int8Lo && q.Hi == nn.Int8Hi:
		return Int8, nil
	case q.Lo == math.MinInt32 && q.Hi == math.MaxInt32:
		return Int32, nil
	}
	return 0, fmt.Errorf("integer range [%d, %d] is not that of UINT8, INT8 or INT32: %w", q.Lo, q.Hi, ErrNotWritable)
}

// encodeFloat32s returns a FLOAT TensorProto (values exact in float32).
func encodeFloat32s(name string, dims []int64, v []float64) []byte {
	raw := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(float32(x)))
	}
	return encodeRaw(name, dims, Float, raw)
}

// encodeInts returns an INT8, UINT8 or INT32 TensorProto.
func encodeInts(name string, dims []int64, typ DataType, v []int64) []byte {
	size := elemSize(typ)
	raw := make([]byte, size*len(v))
	for i, x := range v {
		if size == 1 {
			raw[i] = byte(x)
		} else {
			binary.LittleEndian.PutUint32(raw[4*i:], uint32(int32(x)))
		}
	}
	return encodeRaw(name, dims, typ, raw)
}

// encodeRaw returns a TensorProto with its values in raw_data.
func encodeRaw(name string, dims []int64, typ DataType, raw []byte) []byte {
	var b []byte
	for _, d := range dims {
		b = appendInt(b, 1, d) // dims
	}
	b = appendInt(b, 2, int64(typ)) // data_type
	b = appendString(b, 8, name)    // name
	return appendMessage(b, 9, raw) // raw_data
}
