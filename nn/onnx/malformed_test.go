package onnx

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnbound/nnbound/nn"
)

// A small encoder for hand-made (and broken) models.

// dims builds a ValueInfoProto of element type DOUBLE; each dim is an int
// (a size) or a string (a symbolic name).
func vinfo(name string, dims ...any) []byte {
	var shape []byte
	for _, d := range dims {
		var dim []byte
		switch d := d.(type) {
		case int:
			dim = appendInt(dim, 1, int64(d))
		case string:
			dim = appendString(dim, 2, d)
		}
		shape = appendMessage(shape, 1, dim)
	}
	tensor := appendInt(nil, 1, int64(Double))
	tensor = appendMessage(tensor, 2, shape)
	return appendMessage(appendString(nil, 1, name), 2, appendMessage(nil, 1, tensor))
}

// rawTensor builds a TensorProto with the given type, dims and raw_data.
func rawTensor(name string, typ DataType, dims []int64, raw []byte) []byte {
	var b []byte
	for _, d := range dims {
		b = appendInt(b, 1, d)
	}
	b = appendInt(b, 2, int64(typ))
	b = appendString(b, 8, name)
	return appendMessage(b, 9, raw)
}

// graphModel assembles a model from its graph parts.
type graphModel struct {
	nodes, inits, inputs, outputs [][]byte
}

func (m graphModel) bytes() []byte {
	var g []byte
	for _, n := range m.nodes {
		g = appendMessage(g, 1, n)
	}
	for _, t := range m.inits {
		g = appendMessage(g, 5, t)
	}
	for _, v := range m.inputs {
		g = appendMessage(g, 11, v)
	}
	for _, v := range m.outputs {
		g = appendMessage(g, 12, v)
	}
	b := appendInt(nil, 1, 8)
	return appendMessage(b, 7, g)
}

// chain returns a model x -> nodes -> y with the input declared as dims.
func chain(inits [][]byte, in []any, nodes ...[]byte) []byte {
	return graphModel{nodes: nodes, inits: inits,
		inputs: [][]byte{vinfo("x", in...)}, outputs: [][]byte{vinfo("y")}}.bytes()
}

func mkNode(op string, in []string, out string, attrs ...[]byte) []byte {
	return encodeNode(op, "", in, out, attrs...)
}

func doubles(v ...float64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return b
}

func TestDecodeMalformed(t *testing.T) {
	relu := mkNode("Relu", []string{"x"}, "y")
	w23 := rawTensor("W", Double, []int64{2, 3}, doubles(1, 2, 3, 4, 5, 6))
	gemm := mkNode("Gemm", []string{"x", "W"}, "y", encodeIntAttr("transB", 1))
	many := make([][]byte, 0, 3000)
	for k := range 3000 {
		in, out := "h"+itoa(k), "h"+itoa(k+1)
		if k == 0 {
			in = "x"
		}
		if k == 2999 {
			out = "y"
		}
		many = append(many, mkNode([]string{"Relu", "Tanh"}[k%2], []string{in}, out))
	}
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"empty", nil, ErrMalformed},
		{"garbage", []byte{0xff, 0xff, 0xff}, ErrMalformed},
		{"bad varint", []byte{0x08, 0x80}, ErrMalformed},
		{"truncated bytes", []byte{0x3a, 0x10, 0x01}, ErrMalformed},
		{"wrong wire type", appendMessage(appendString(nil, 1, "x"), 7, nil), ErrMalformed},
		{"no graph", appendInt(nil, 1, 8), ErrMalformed},
		{"no data input", graphModel{nodes: [][]byte{relu}, outputs: [][]byte{vinfo("y")}}.bytes(), ErrNotChain},
		{"no output", graphModel{nodes: [][]byte{relu}, inputs: [][]byte{vinfo("x", "N", 3)}}.bytes(), ErrNotChain},
		{"no shape", graphModel{nodes: [][]byte{relu}, inputs: [][]byte{appendString(nil, 1, "x")},
			outputs: [][]byte{vinfo("y")}}.bytes(), ErrShape},
		{"node without output", chain(nil, []any{"N", 3}, mkNode("Relu", []string{"x"}, "")), ErrMalformed},
		{"undefined input", chain(nil, []any{"N", 3}, mkNode("Add", []string{"x", "c"}, "y")), ErrMalformed},
		{"huge dims, little data", chain([][]byte{rawTensor("W", Double, []int64{1 << 40, 1 << 40}, doubles(1))},
			[]any{"N", 3}, gemm), ErrMalformed},
		{"negative dim", chain([][]byte{rawTensor("W", Double, []int64{-2, -3}, doubles(1, 2, 3, 4, 5, 6))},
			[]any{"N", 3}, gemm), ErrMalformed},
		{"raw size", chain([][]byte{rawTensor("W", Double, []int64{2, 3}, make([]byte, 47))},
			[]any{"N", 3}, gemm), ErrMalformed},
		{"int weights", chain([][]byte{rawTensor("W", Int64, []int64{2, 3}, make([]byte, 48))},
			[]any{"N", 3}, gemm), ErrDataType},
		{"bool weights", chain([][]byte{rawTensor("W", Bool, []int64{2, 3}, make([]byte, 6))},
			[]any{"N", 3}, gemm), ErrDataType},
		{"external data", chain([][]byte{appendInt(rawTensor("W", Double, []int64{2, 3}, nil), 14, 1)},
			[]any{"N", 3}, gemm), ErrDataType},
		{"float reshape target", chain([][]byte{rawTensor("s", Double, []int64{2}, doubles(-1, 3))},
			[]any{"N", 3}, mkNode("Reshape", []string{"x", "s"}, "y")), ErrDataType},
		{"huge input", chain(nil, []any{"N", 1 << 40}, relu), ErrTooLarge},
		{"huge identity", chain(nil, []any{"N", 100000}, relu), ErrNotChain}, // a graph; the chain would need a dense identity map
		{"many layers", chain(nil, []any{"N", 40}, many...), ErrTooLarge},
		{"huge reshape", chain([][]byte{rawTensor("s", Int64, []int64{3}, int64s(0, 1<<40, 1<<40))},
			[]any{"N", 3}, mkNode("Reshape", []string{"x", "s"}, "y")), ErrShape},
		{"huge unsqueeze", chain([][]byte{rawTensor("a", Int64, []int64{1}, int64s(1<<40))},
			[]any{"N", 3}, mkNode("Unsqueeze", []string{"x", "a"}, "y")), ErrShape},
		{"weight mismatch", chain([][]byte{w23}, []any{"N", 4}, gemm), ErrShape},
		{"1-D Gemm input", chain([][]byte{w23}, []any{3}, gemm), ErrShape},
		{"Gemm 3-D weight", chain([][]byte{rawTensor("W", Double, []int64{1, 2, 3}, doubles(1, 2, 3, 4, 5, 6))},
			[]any{"N", 3}, gemm), ErrShape},
		{"MatMul batch of matrices", chain([][]byte{rawTensor("W", Double, []int64{2, 3, 1}, doubles(1, 2, 3, 4, 5, 6))},
			[]any{"N", 3}, mkNode("MatMul", []string{"x", "W"}, "y")), ErrUnsupportedOp},
		{"Clip with a vector bound", chain([][]byte{rawTensor("lo", Double, []int64{2}, doubles(0, 1))},
			[]any{"N", 2}, mkNode("Clip", []string{"x", "lo"}, "y")), ErrShape},
		{"Clip NaN", chain([][]byte{rawTensor("lo", Double, nil, doubles(math.NaN()))},
			[]any{"N", 2}, mkNode("Clip", []string{"x", "lo"}, "y")), nn.ErrBounds},
		{"overflow to Inf", chain([][]byte{rawTensor("W", Double, []int64{1, 1}, doubles(1e300))},
			[]any{"N", 1}, mkNode("Gemm", []string{"x", "W"}, "h"), mkNode("Gemm", []string{"h", "W"}, "y")), nn.ErrNotFinite},
		{"Constant without value", chain(nil, []any{"N", 3}, mkNode("Constant", nil, "c"), mkNode("Add", []string{"x", "c"}, "y")), ErrMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			net, _, err := Decode(tc.data, "test.onnx")
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v (network %v), want %v", err, net != nil, tc.want)
			}
			t.Log(err)
		})
	}
}

func int64s(v ...int64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return b
}

// TestDecodeTruncated decodes every prefix of real files: each must give a
// valid network or an error, never a panic.
func TestDecodeTruncated(t *testing.T) {
	for _, p := range []string{
		filepath.Join("testdata", "graphs", "minmax_vector.onnx"),
		filepath.Join("testdata", "graphs", "reshape_constant_node.onnx"),
		filepath.Join("testdata", "torch", "matmul_flatten", "matmul_flatten.onnx"),
	} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for n := range len(data) {
			decodeNoPanic(t, data[:n])
		}
	}
}

// TestDecodeTruncatedSays checks that bytes that are not a complete
// protobuf message are named as such, with the file: a truncated file as
// truncated or corrupt, bytes that are no protobuf as not ONNX; and that
// a well-formed message without a graph is not called either.
func TestDecodeTruncatedSays(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "torch", "matmul_flatten", "matmul_flatten.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"half", data[:len(data)/2], "onnx: m.onnx: truncated or corrupt file ("},
		{"all but one byte", data[:len(data)-1], "onnx: m.onnx: truncated or corrupt file ("},
		{"text", []byte("hello\n"), "onnx: m.onnx: not an ONNX file, or a corrupt one (6 bytes)"},
		{"no graph", appendInt(nil, 1, 8), "onnx: m.onnx: model has no graph"},
	} {
		_, _, err := Decode(tc.data, "m.onnx")
		if !errors.Is(err, ErrMalformed) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q... wrapping ErrMalformed", tc.name, err, tc.want)
		}
	}
}

// TestDecodeRandom decodes random bytes and randomly mutated files.
func TestDecodeRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	seed, err := os.ReadFile(filepath.Join("testdata", "graphs", "arith_chain.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	for range 2000 {
		b := make([]byte, rng.IntN(200))
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		decodeNoPanic(t, b)
		m := append([]byte(nil), seed...)
		for range 1 + rng.IntN(4) {
			m[rng.IntN(len(m))] = byte(rng.UintN(256))
		}
		decodeNoPanic(t, m)
	}
}

// decodeNoPanic decodes data and checks the invariants of a success: the
// network validates, evaluates, and survives a write/read round trip
// unchanged.
func decodeNoPanic(t *testing.T, data []byte) {
	t.Helper()
	graphNoPanic(t, data)
	net, info, err := Decode(data, "fuzz")
	if err != nil {
		if net != nil {
			t.Fatalf("error %v with a network", err)
		}
		return
	}
	if info == nil {
		t.Fatal("no info")
	}
	if err := net.Validate(); err != nil {
		t.Fatalf("decoded an invalid network: %v", err)
	}
	y, err := net.Eval(make([]float64, net.InputSize()))
	if err != nil || len(y) != net.OutputSize() {
		t.Fatalf("eval: %v, %d outputs", err, len(y))
	}
	if net.Structured() && hasIntegers(net) {
		return // the QDQ writer does not write convolutions (ErrNotWritable)
	}
	if err := Write(io.Discard, net); errors.Is(err, ErrNotWritable) && net.Quantised() {
		return // fused parameters that are not float32 values next to quantisers
	}
	again, _, _ := roundTrip(t, net)
	requireIdentical(t, again, net)
}

// graphNoPanic checks that DecodeGraph of data returns an error or a graph
// that validates and evaluates.
func graphNoPanic(t *testing.T, data []byte) {
	t.Helper()
	g, _, err := DecodeGraph(data, "fuzz")
	if err != nil {
		if g != nil {
			t.Fatalf("error %v with a graph", err)
		}
		return
	}
	if err := g.Validate(); err != nil {
		t.Fatalf("decoded an invalid graph: %v", err)
	}
	if y, err := g.Eval(make([]float64, g.InputSize())); err != nil || len(y) != g.OutputSize() {
		t.Fatalf("graph eval: %v, %d outputs", err, len(y))
	}
}
