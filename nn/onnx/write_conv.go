package onnx

import (
	"encoding/binary"
	"fmt"

	"github.com/nnbound/nnbound/nn"
)

// convNodes returns the nodes and initializers that apply the structured
// layer l (number k) to the flat sample h, up to its pre-activation, and
// the name of that pre-activation (z):
//
//	Reshape(h, [-1, C, H, W]) -> Conv(Wk, bk) -> Flatten(axis 1) [-> Add(ck)]
//
// with the kernel Wk [M, C/group, KH, KW], the per-channel bias bk when
// l's bias is constant on each output channel, and otherwise the whole
// bias as ck, added after the Flatten. The reader turns these nodes back
// into the same layer (a structured one when its dense matrix is larger
// than MaxDenseConvEntries).
func convNodes(k int, l nn.Layer, h, z string) (nodes, inits [][]byte, err error) {
	c := l.Conv
	end, err := endPads([2]int{c.InH, c.InW}, [2]int{c.OutH, c.OutW}, [2]int{c.KH, c.KW}, c.Stride, c.Dil, c.Pad)
	if err != nil {
		return nil, nil, fmt.Errorf("layer %d: %w", k, err)
	}
	shape, wName, bName := fmt.Sprintf("shape%d", k), fmt.Sprintf("W%d", k), fmt.Sprintf("b%d", k)
	inits = append(inits, encodeInt64s(shape, []int64{-1, int64(c.InC), int64(c.InH), int64(c.InW)}),
		encodeTensor(wName, []int64{int64(c.OutC), int64(c.InC / c.Groups), int64(c.KH), int64(c.KW)}, c.Kernel))
	plane := c.OutH * c.OutW
	bias := make([]float64, c.OutC)
	perChannel := true
	for i, v := range l.B {
		bias[i/plane] = l.B[i/plane*plane]
		perChannel = perChannel && v == bias[i/plane]
	}
	in4, conv, flat := fmt.Sprintf("in%d", k), fmt.Sprintf("conv%d", k), fmt.Sprintf("flat%d", k)
	convIn := []string{in4, wName}
	if perChannel {
		inits = append(inits, encodeTensor(bName, []int64{int64(c.OutC)}, bias))
		convIn = append(convIn, bName)
		flat = z
	}
	nodes = append(nodes, encodeNode("Reshape", fmt.Sprintf("reshape%d", k), []string{h, shape}, in4),
		encodeNode("Conv", conv, convIn, conv,
			encodeIntsAttr("kernel_shape", int64(c.KH), int64(c.KW)),
			encodeIntsAttr("strides", int64(c.Stride[0]), int64(c.Stride[1])),
			encodeIntsAttr("dilations", int64(c.Dil[0]), int64(c.Dil[1])),
			encodeIntsAttr("pads", int64(c.Pad[0]), int64(c.Pad[1]), int64(end[0]), int64(end[1])),
			encodeIntAttr("group", int64(c.Groups))),
		encodeNode("Flatten", fmt.Sprintf("flatten%d", k), []string{conv}, flat, encodeIntAttr("axis", 1)))
	if !perChannel {
		inits = append(inits, encodeTensor(bName, []int64{1, int64(c.Out())}, l.B))
		nodes = append(nodes, encodeNode("Add", fmt.Sprintf("add%d", k), []string{flat, bName}, z))
	}
	return nodes, inits, nil
}

// encodeIntsAttr returns an INTS AttributeProto.
func encodeIntsAttr(name string, v ...int64) []byte {
	b := appendString(nil, 1, name) // name
	b = appendInt(b, 20, attrInts)  // type
	for _, x := range v {
		b = appendInt(b, 8, x) // ints
	}
	return b
}

// encodeInt64s returns an INT64 TensorProto of shape [len(v)].
func encodeInt64s(name string, v []int64) []byte {
	raw := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(x))
	}
	return encodeRaw(name, []int64{int64(len(v))}, Int64, raw)
}
