package onnx

import "fmt"

// The parts of onnx.proto that nnbound reads, decoded field by field with
// walk (protobuf.go). Field numbers are those of onnx.proto (IR version 8);
// fields not listed are skipped.

// model is a decoded ModelProto.
type model struct {
	irVersion       int64
	opsets          []Opset
	producerName    string
	producerVersion string
	graph           *graph
}

// graph is a decoded GraphProto.
type graph struct {
	nodes   []*node
	inits   []*tensor
	inputs  []Value
	outputs []Value
}

// node is a decoded NodeProto.
type node struct {
	inputs, outputs []string
	name, opType    string
	domain          string
	attrs           []*attribute
}

// attribute is a decoded AttributeProto (the kinds nnbound uses).
type attribute struct {
	name   string
	typ    int64 // AttributeProto.AttributeType
	f      float32
	i      int64
	s      string
	t      *tensor
	floats []float32
	ints   []int64
}

// The AttributeProto.AttributeType values nnbound reads.
const (
	attrFloat  = 1
	attrInt    = 2
	attrTensor = 4
	attrFloats = 6
	attrInts   = 7
)

// tensor is a decoded TensorProto. Its data is kept in the form the file
// gives it and converted on use (tensor.go).
type tensor struct {
	name     string
	dims     []int64
	dataType DataType
	raw      []byte
	hasRaw   bool
	floats   []float32
	doubles  []float64
	int32s   []int64 // int32_data, also holding FLOAT16 bit patterns
	int64s   []int64
	external bool
}

// decodeModel decodes a ModelProto.
func decodeModel(b []byte) (*model, error) {
	m := &model{}
	err := walk(b, func(f field) (err error) {
		switch f.num {
		case 1: // ir_version
			m.irVersion, err = f.int()
		case 2: // producer_name
			m.producerName, err = f.str()
		case 3: // producer_version
			m.producerVersion, err = f.str()
		case 7: // graph
			var gb []byte
			if gb, err = f.msg(); err == nil {
				m.graph, err = decodeGraph(gb)
			}
		case 8: // opset_import
			var ob []byte
			if ob, err = f.msg(); err == nil {
				var o Opset
				o, err = decodeOpset(ob)
				m.opsets = append(m.opsets, o)
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if m.graph == nil {
		return nil, fmt.Errorf("model has no graph: %w", ErrMalformed)
	}
	return m, nil
}

// decodeOpset decodes an OperatorSetIdProto.
func decodeOpset(b []byte) (Opset, error) {
	var o Opset
	err := walk(b, func(f field) (err error) {
		switch f.num {
		case 1: // domain
			o.Domain, err = f.str()
		case 2: // version
			o.Version, err = f.int()
		}
		return err
	})
	return o, err
}

// decodeGraph decodes a GraphProto; errors name the node, initializer or
// value that fails.
func decodeGraph(b []byte) (*graph, error) {
	g := &graph{}
	err := walk(b, func(f field) error {
		switch f.num {
		case 1, 5, 11, 12:
		default:
			return nil
		}
		mb, err := f.msg()
		if err != nil {
			return fmt.Errorf("graph: %w", err)
		}
		switch f.num {
		case 1: // node
			n, err := decodeNode(mb)
			if err != nil {
				return fmt.Errorf("node %d: %w", len(g.nodes), err)
			}
			g.nodes = append(g.nodes, n)
		case 5: // initializer
			t, err := decodeTensor(mb)
			if err != nil {
				return fmt.Errorf("initializer %d: %w", len(g.inits), err)
			}
			g.inits = append(g.inits, t)
		case 11, 12: // input, output
			v, err := decodeValueInfo(mb)
			if err != nil {
				return fmt.Errorf("graph input/output %q: %w", v.Name, err)
			}
			if f.num == 11 {
				g.inputs = append(g.inputs, v)
			} else {
				g.outputs = append(g.outputs, v)
			}
		}
		return nil
	})
	return g, err
}

// decodeNode decodes a NodeProto.
func decodeNode(b []byte) (*node, error) {
	n := &node{}
	err := walk(b, func(f field) (err error) {
		var s string
		switch f.num {
		case 1: // input
			s, err = f.str()
			n.inputs = append(n.inputs, s)
		case 2: // output
			s, err = f.str()
			n.outputs = append(n.outputs, s)
		case 3: // name
			n.name, err = f.str()
		case 4: // op_type
			n.opType, err = f.str()
		case 7: // domain
			n.domain, err = f.str()
		case 5: // attribute
			var ab []byte
			if ab, err = f.msg(); err == nil {
				var a *attribute
				a, err = decodeAttribute(ab)
				n.attrs = append(n.attrs, a)
			}
		}
		return err
	})
	return n, err
}

// decodeAttribute decodes an AttributeProto; errors name it.
func decodeAttribute(b []byte) (*attribute, error) {
	a := &attribute{}
	err := walk(b, func(f field) (err error) {
		switch f.num {
		case 1: // name
			a.name, err = f.str()
		case 20: // type
			a.typ, err = f.int()
		case 2: // f
			a.f, err = f.float32()
		case 3: // i
			a.i, err = f.int()
		case 4: // s
			a.s, err = f.str()
		case 5: // t
			var tb []byte
			if tb, err = f.msg(); err == nil {
				a.t, err = decodeTensor(tb)
			}
		case 7: // floats
			a.floats, err = appendFixed32(a.floats, f)
		case 8: // ints
			a.ints, err = appendVarints(a.ints, f)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("attribute %q: %w", a.name, err)
	}
	return a, nil
}

// decodeTensor decodes a TensorProto, keeping its data as stored; errors
// name it.
func decodeTensor(b []byte) (*tensor, error) {
	t := &tensor{}
	err := walk(b, func(f field) (err error) {
		var v int64
		switch f.num {
		case 1: // dims
			t.dims, err = appendVarints(t.dims, f)
		case 2: // data_type
			v, err = f.int()
			t.dataType = DataType(v)
		case 4: // float_data
			t.floats, err = appendFixed32(t.floats, f)
		case 5: // int32_data
			t.int32s, err = appendVarints(t.int32s, f)
		case 7: // int64_data
			t.int64s, err = appendVarints(t.int64s, f)
		case 8: // name
			t.name, err = f.str()
		case 9: // raw_data
			t.raw, err = f.msg()
			t.hasRaw = true
		case 10: // double_data
			t.doubles, err = appendFixed64(t.doubles, f)
		case 14: // data_location
			v, err = f.int()
			t.external = v == 1
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("tensor %q: %w", t.name, err)
	}
	return t, nil
}

// decodeValueInfo decodes a ValueInfoProto with a tensor type. A missing
// shape leaves Shape nil.
func decodeValueInfo(b []byte) (Value, error) {
	var v Value
	err := walk(b, func(f field) (err error) {
		switch f.num {
		case 1: // name
			v.Name, err = f.str()
		case 2: // type
			var tb []byte
			if tb, err = f.msg(); err == nil {
				err = walk(tb, func(f field) error { // TypeProto
					if f.num != 1 { // tensor_type
						return nil
					}
					return decodeTensorType(f, &v)
				})
			}
		}
		return err
	})
	return v, err
}

// decodeTensorType decodes TypeProto.Tensor into v's type and shape.
func decodeTensorType(f field, v *Value) error {
	b, err := f.msg()
	if err != nil {
		return err
	}
	return walk(b, func(f field) (err error) {
		switch f.num {
		case 1: // elem_type
			var t int64
			t, err = f.int()
			v.Type = DataType(t)
		case 2: // shape
			var sb []byte
			if sb, err = f.msg(); err == nil {
				v.Shape, err = decodeShape(sb)
			}
		}
		return err
	})
}

// decodeShape decodes a TensorShapeProto; the result is non-nil even for a
// scalar.
func decodeShape(b []byte) (Shape, error) {
	s := Shape{}
	err := walk(b, func(f field) error {
		if f.num != 1 { // dim
			return nil
		}
		db, err := f.msg()
		if err != nil {
			return err
		}
		d := Dim{Size: -1}
		err = walk(db, func(f field) (err error) {
			switch f.num {
			case 1: // dim_value
				d.Size, err = f.int()
				if err == nil && d.Size < 0 {
					err = fmt.Errorf("negative dimension %d: %w", d.Size, ErrMalformed)
				}
			case 2: // dim_param
				d.Param, err = f.str()
			}
			return err
		})
		s = append(s, d)
		return err
	})
	return s, err
}
