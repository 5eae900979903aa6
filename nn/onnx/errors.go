package onnx

import "errors"

// Sentinel errors, for errors.Is. Every error of this package wraps one of
// them (or an nn sentinel such as nn.ErrNotFinite) and names the file and,
// where there is one, the node.
var (
	// ErrMalformed reports bytes that are not a well-formed ONNX model:
	// truncated or invalid protobuf, tensor data that does not match its
	// declared shape, a missing graph.
	ErrMalformed = errors.New("malformed ONNX model")

	// ErrUnsupportedOp reports an operator, operator domain or attribute
	// value that nnbound does not translate.
	ErrUnsupportedOp = errors.New("unsupported operator")

	// ErrNotChain reports a graph that is not a DAG from one data input to
	// one output (two data inputs, an output that is not computed from the
	// input), or, for Read, a graph that is no chain of layers (a residual
	// join, a concatenation, a max pool).
	ErrNotChain = errors.New("graph is not a chain")

	// ErrNotConstant reports a data-dependent operand where the
	// translation needs a constant (a weight, a bias, a shape).
	ErrNotConstant = errors.New("operand is not a constant")

	// ErrShape reports shapes that do not fit: operands that do not
	// broadcast, a reshape that moves values between samples of the
	// batch, an input whose size is not known.
	ErrShape = errors.New("shape mismatch")

	// ErrDataType reports a tensor element type that cannot be used where
	// it appears (integer weights, string tensors, external data).
	ErrDataType = errors.New("unsupported tensor type")

	// ErrTooLarge reports a model whose translation would need more memory
	// than its file size justifies.
	ErrTooLarge = errors.New("model too large")
)
