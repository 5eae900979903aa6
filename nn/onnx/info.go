package onnx

import (
	"fmt"

	"github.com/nnbound/nnbound/nn"
	"strconv"
	"strings"
)

// DataType is an ONNX tensor element type (TensorProto.DataType).
type DataType int32

// The element types; only Float, Double and Float16 can hold weights.
const (
	Undefined  DataType = 0
	Float      DataType = 1
	Uint8      DataType = 2
	Int8       DataType = 3
	Uint16     DataType = 4
	Int16      DataType = 5
	Int32      DataType = 6
	Int64      DataType = 7
	String     DataType = 8
	Bool       DataType = 9
	Float16    DataType = 10
	Double     DataType = 11
	Uint32     DataType = 12
	Uint64     DataType = 13
	Complex64  DataType = 14
	Complex128 DataType = 15
	BFloat16   DataType = 16
)

var dataTypeNames = [...]string{"UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32",
	"INT64", "STRING", "BOOL", "FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16"}

// String returns the name ONNX uses, such as "DOUBLE".
func (t DataType) String() string {
	if t < 0 || int(t) >= len(dataTypeNames) {
		return "DataType(" + strconv.Itoa(int(t)) + ")"
	}
	return dataTypeNames[t]
}

// Dim is one dimension of a declared shape: a size, or a symbolic name
// (Param) such as "N" or "batch_size". Size is -1 when the dimension is
// symbolic or unknown.
type Dim struct {
	Size  int64
	Param string
}

// String returns the size, the symbolic name, or "?" for an unnamed
// unknown dimension.
func (d Dim) String() string {
	switch {
	case d.Size >= 0:
		return strconv.FormatInt(d.Size, 10)
	case d.Param != "":
		return d.Param
	}
	return "?"
}

// Shape is a declared tensor shape.
type Shape []Dim

// String returns the shape as "[N,1,28,28]".
func (s Shape) String() string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = d.String()
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// Opset is one operator set a model imports; Domain "" is the default
// ONNX domain ("ai.onnx").
type Opset struct {
	Domain  string
	Version int64
}

// String returns "13" for the default domain and "domain:version" otherwise.
func (o Opset) String() string {
	if o.Domain == "" || o.Domain == "ai.onnx" {
		return strconv.FormatInt(o.Version, 10)
	}
	return o.Domain + ":" + strconv.FormatInt(o.Version, 10)
}

// Value describes a graph input or output: its name, element type and
// declared shape (nil when the file declares none).
type Value struct {
	Name  string
	Type  DataType
	Shape Shape
}

// Info holds the format details of an ONNX file, as nnbound inspect prints
// them.
type Info struct {
	IRVersion       int64
	Opsets          []Opset
	ProducerName    string
	ProducerVersion string
	Input           Value      // the one data input (a graph input without initializer)
	Output          Value      // the graph output
	InitTypes       []DataType // element types of the initializers, each once, in order of appearance
	Initializers    int        // number of initializers
	Ops             []string   // node op types in graph order
	// Lowered describes each node lowered to a dense affine map, such as
	// "Conv 1x8x8 -> 8x8x8 (512 x 64)" (channels x height x width before and
	// after, then the matrix's rows x columns), and each Conv read as a
	// structured layer ("Conv 8x28x28 -> 16x14x14 (structured, 1152 kernel
	// values)"); empty when none was.
	Lowered []string
	// Graph is the translated graph (ReadGraph), for inspect to describe
	// (nn.Graph.Ops, its nodes and their shapes); nil when the model was
	// read as a chain (Read) or the translation failed.
	Graph *nn.Graph
}

// String returns a multi-line summary of the format details.
func (in *Info) String() string {
	var b strings.Builder
	opsets := make([]string, len(in.Opsets))
	for i, o := range in.Opsets {
		opsets[i] = o.String()
	}
	types := make([]string, len(in.InitTypes))
	for i, t := range in.InitTypes {
		types[i] = t.String()
	}
	producer := strings.TrimSpace(in.ProducerName + " " + in.ProducerVersion)
	if producer == "" {
		producer = "-"
	}
	fmt.Fprintf(&b, "format:       ONNX, IR version %d, opset %s\n", in.IRVersion, strings.Join(opsets, ","))
	fmt.Fprintf(&b, "producer:     %s\n", producer)
	fmt.Fprintf(&b, "input:        %s %s %v\n", in.Input.Name, in.Input.Type, in.Input.Shape)
	fmt.Fprintf(&b, "output:       %s %s %v\n", in.Output.Name, in.Output.Type, in.Output.Shape)
	fmt.Fprintf(&b, "initializers: %d (%s)\n", in.Initializers, strings.Join(types, ","))
	fmt.Fprintf(&b, "nodes:        %d (%s)\n", len(in.Ops), strings.Join(in.Ops, ","))
	if len(in.Lowered) > 0 {
		fmt.Fprintf(&b, "lowered:      %s\n", strings.Join(in.Lowered, "; "))
	}
	return b.String()
}
