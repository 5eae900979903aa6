package onnx

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/nnbound/nnbound/nn"
)

// The versions the writer declares: IR version 8 and opset 13 are accepted
// by the checker of onnx 1.12 with DOUBLE tensors everywhere.
const (
	writeIRVersion = 8
	writeOpset     = 13
)

// Write writes n as an ONNX model: IR version 8, opset 13, input "x" of
// shape [N, n_in] and output "y" of shape [N, n_out] (N symbolic), DOUBLE
// (float64) initializers in raw_data, and per layer k
//
//	Gemm(h, Wk, bk, transB=1)            Wk stored [out, in]
//	then Relu | Tanh | Sigmoid
//	   | LeakyRelu(alpha)                alpha a float32
//	   | PRelu(slope_k)                  LeakyReLU whose alpha is not a float32
//	   | Elu(alpha)                      alpha a float32
//	   | Elu(alpha=1), PRelu(slope_k)    ELU whose alpha is not a float32
//	   | Clip(lo_k, hi_k)                HardTanh, DOUBLE scalar bounds
//
// and nothing for Identity; a structured (convolutional) layer is written
// as a Conv between Reshape and Flatten (write_conv.go). ONNX float attributes are float32, so alphas
// that are not float32 values go into DOUBLE initializers; the reader turns
// these patterns back into the same activations. Reading the file back
// gives n bit for bit, except that the reader fuses consecutive affine
// layers: an Identity layer before the last comes back composed with its
// successor (see nn.FuseLayers).
//
// A network with quantisers or integer parameters (an int8 model) is
// written in QDQ form instead, in FLOAT (write_qdq.go); values that are not
// exact there give an error wrapping ErrNotWritable.
func Write(w io.Writer, n *nn.Network) error {
	if err := n.Validate(); err != nil {
		return fmt.Errorf("onnx: %w", err)
	}
	graph, err := encodeGraph(n)
	if err == nil && hasIntegers(n) {
		if n.Structured() {
			err = fmt.Errorf("a quantised network with convolutional layers: %w", ErrNotWritable)
		} else {
			graph, err = encodeQDQGraph(n)
		}
	}
	if err != nil {
		return fmt.Errorf("onnx: %w", err)
	}
	if _, err := w.Write(encodeModel(graph)); err != nil {
		return fmt.Errorf("onnx: %w", err)
	}
	return nil
}

// hasIntegers reports whether n has quantisers or integer parameters, which
// are written in QDQ form (write_qdq.go).
func hasIntegers(n *nn.Network) bool {
	if n.Quantised() {
		return true
	}
	for _, l := range n.Layers {
		if l.Int != nil {
			return true
		}
	}
	return false
}

// encodeModel returns the ModelProto bytes of a model with the GraphProto
// bytes graph.
func encodeModel(graph []byte) []byte {
	var opset []byte
	opset = appendString(opset, 1, "")      // domain: the default
	opset = appendInt(opset, 2, writeOpset) // version

	var m []byte
	m = appendInt(m, 1, writeIRVersion) // ir_version
	m = appendString(m, 2, "nnbound")   // producer_name
	m = appendMessage(m, 7, graph)      // graph
	m = appendMessage(m, 8, opset)      // opset_import
	return m
}

// encodeGraph returns the GraphProto bytes of n.
func encodeGraph(n *nn.Network) ([]byte, error) {
	var nodes, inits [][]byte
	h := "x"
	last := len(n.Layers) - 1
	for k, l := range n.Layers {
		out := func(name string, final bool) string {
			if k == last && final {
				return "y"
			}
			return fmt.Sprintf("%s%d", name, k)
		}
		wName, bName := fmt.Sprintf("W%d", k), fmt.Sprintf("b%d", k)
		z := out("z", l.Act.Kind == nn.Identity)
		if l.Conv != nil {
			cn, ci, err := convNodes(k, l, h, z)
			if err != nil {
				return nil, err
			}
			nodes, inits = append(nodes, cn...), append(inits, ci...)
		} else {
			inits = append(inits, encodeMatrix(wName, l), encodeTensor(bName, []int64{int64(l.Out())}, l.B))
			nodes = append(nodes, encodeNode("Gemm", fmt.Sprintf("gemm%d", k), []string{h, wName, bName}, z,
				encodeIntAttr("transB", 1)))
		}
		h = z
		for _, a := range activationNodes(l.Act, k) {
			inits = append(inits, a.inits...)
			o := out(a.out, a.final)
			nodes = append(nodes, encodeNode(a.op, fmt.Sprintf("%s%d", a.out, k), append([]string{h}, a.inputs...), o, a.attrs...))
			h = o
		}
	}
	var g []byte
	for _, nd := range nodes {
		g = appendMessage(g, 1, nd) // node
	}
	g = appendString(g, 2, "nnbound") // name
	for _, t := range inits {
		g = appendMessage(g, 5, t) // initializer
	}
	g = appendMessage(g, 11, encodeValueInfo("x", n.InputSize()))  // input
	g = appendMessage(g, 12, encodeValueInfo("y", n.OutputSize())) // output
	return g, nil
}

// actNode is one node of an activation: its op type, extra inputs and
// attributes, the initializers of those inputs, the stem of its output
// name and whether it is the activation's last node.
type actNode struct {
	op     string
	inputs []string
	attrs  [][]byte
	inits  [][]byte
	out    string
	final  bool
}

// activationNodes returns the nodes of activation a in layer k.
func activationNodes(a nn.Activation, k int) []actNode {
	slope := func() actNode {
		name := fmt.Sprintf("slope%d", k)
		return actNode{op: "PRelu", inputs: []string{name}, out: "prelu", final: true,
			inits: [][]byte{encodeTensor(name, []int64{1}, []float64{a.Alpha})}}
	}
	switch a.Kind {
	case nn.ReLU:
		return []actNode{{op: "Relu", out: "relu", final: true}}
	case nn.Tanh:
		return []actNode{{op: "Tanh", out: "tanh", final: true}}
	case nn.Sigmoid:
		return []actNode{{op: "Sigmoid", out: "sigmoid", final: true}}
	case nn.LeakyReLU:
		if isFloat32(a.Alpha) {
			return []actNode{{op: "LeakyRelu", attrs: [][]byte{encodeFloatAttr("alpha", a.Alpha)}, out: "leakyrelu", final: true}}
		}
		return []actNode{slope()}
	case nn.ELU:
		if isFloat32(a.Alpha) {
			return []actNode{{op: "Elu", attrs: [][]byte{encodeFloatAttr("alpha", a.Alpha)}, out: "elu", final: true}}
		}
		return []actNode{{op: "Elu", attrs: [][]byte{encodeFloatAttr("alpha", 1)}, out: "elu"}, slope()}
	case nn.HardTanh:
		lo, hi := fmt.Sprintf("lo%d", k), fmt.Sprintf("hi%d", k)
		return []actNode{{op: "Clip", inputs: []string{lo, hi}, out: "clip", final: true,
			inits: [][]byte{encodeTensor(lo, nil, []float64{a.Lo}), encodeTensor(hi, nil, []float64{a.Hi})}}}
	}
	return nil
}

// isFloat32 reports whether v is exactly a float32 value.
func isFloat32(v float64) bool { return float64(float32(v)) == v }

// appendInt appends the varint field num.
func appendInt(b []byte, num number, v int64) []byte {
	return appendVarint(appendTag(b, num, varintType), uint64(v))
}

// appendString appends the string field num.
func appendString(b []byte, num number, s string) []byte {
	return appendLengthDelimited(appendTag(b, num, bytesType), s)
}

// appendMessage appends the embedded message (or bytes) field num.
func appendMessage(b []byte, num number, m []byte) []byte {
	return appendLengthDelimited(appendTag(b, num, bytesType), m)
}

// encodeNode returns a NodeProto.
func encodeNode(op, name string, inputs []string, output string, attrs ...[]byte) []byte {
	var b []byte
	for _, in := range inputs {
		b = appendString(b, 1, in) // input
	}
	b = appendString(b, 2, output) // output
	b = appendString(b, 3, name)   // name
	b = appendString(b, 4, op)     // op_type
	for _, a := range attrs {
		b = appendMessage(b, 5, a) // attribute
	}
	return b
}

// encodeIntAttr returns an INT AttributeProto.
func encodeIntAttr(name string, v int64) []byte {
	b := appendString(nil, 1, name) // name
	b = appendInt(b, 20, attrInt)   // type
	return appendInt(b, 3, v)       // i
}

// encodeFloatAttr returns a FLOAT AttributeProto: v rounded to float32.
func encodeFloatAttr(name string, v float64) []byte {
	b := appendString(nil, 1, name)  // name
	b = appendInt(b, 20, attrFloat)  // type
	b = appendTag(b, 2, fixed32Type) // f
	return binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(v)))
}

// encodeTensor returns a DOUBLE TensorProto with the values in raw_data.
func encodeTensor(name string, dims []int64, v []float64) []byte {
	var b []byte
	for _, d := range dims {
		b = appendInt(b, 1, d) // dims
	}
	b = appendInt(b, 2, int64(Double)) // data_type
	b = appendString(b, 8, name)       // name
	raw := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(raw[8*i:], math.Float64bits(x))
	}
	return appendMessage(b, 9, raw) // raw_data
}

// encodeMatrix returns the weight matrix of l as a DOUBLE tensor [out, in].
func encodeMatrix(name string, l nn.Layer) []byte {
	r, c := l.W.Dims()
	v := make([]float64, 0, r*c)
	for i := range r {
		v = append(v, l.W.RawRowView(i)...)
	}
	return encodeTensor(name, []int64{int64(r), int64(c)}, v)
}

// encodeValueInfo returns a ValueInfoProto for a DOUBLE tensor [N, size].
func encodeValueInfo(name string, size int) []byte {
	return encodeValueInfoType(name, size, Double)
}

// encodeValueInfoType returns a ValueInfoProto for a tensor [N, size] of
// element type et.
func encodeValueInfoType(name string, size int, et DataType) []byte {
	var batch, feat, shape, tensor, typ []byte
	batch = appendString(batch, 2, "N")      // dim_param
	feat = appendInt(feat, 1, int64(size))   // dim_value
	shape = appendMessage(shape, 1, batch)   // dim
	shape = appendMessage(shape, 1, feat)    // dim
	tensor = appendInt(tensor, 1, int64(et)) // elem_type
	tensor = appendMessage(tensor, 2, shape) // shape
	typ = appendMessage(typ, 1, tensor)      // tensor_type
	b := appendString(nil, 1, name)          // name
	return appendMessage(b, 2, typ)          // type
}
