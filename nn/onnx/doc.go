// Package onnx reads feed-forward networks from ONNX files, as graphs and
// as chains of layers, and writes them.
//
// # Reading
//
// ReadGraph and DecodeGraph translate any DAG from one data input (a graph
// input without an initializer) to one output into an nn.Graph of
// structured operations, exactly, in float64 (graphread.go; one file per
// kind of operator, registry in graphops.go). The operators (default
// domain, any opset) are
//
//	Gemm          alpha, beta, transA, transB; the data may be A or B
//	MatMul        X W or W X, W 2-D (or with leading unit axes) or 1-D;
//	              X W on X of rank > 1 is W on every row (nn.RowMap)
//	Add Sub Mul   with a constant on either side, broadcast (scalars,
//	Div           per-feature vectors): a scaling with a bias; Div only by
//	              a constant; Add and Sub of two computed tensors:
//	              nn.Add (a residual join), broadcast by selections
//	BatchNormalization  inference mode: a scaling with a bias
//	Conv          2-D on [N,C,H,W]: strides, pads (also asymmetric),
//	              dilations, group (depthwise too), with or without bias,
//	              auto_pad NOTSET, VALID, SAME_UPPER, SAME_LOWER: an
//	              nn.Conv2D, never a matrix
//	MaxPool AveragePool GlobalAveragePool  2-D, strides, pads, dilations,
//	              ceil_mode, count_include_pad: nn.MaxPool, nn.AvgPool2D
//	Relu Tanh Sigmoid LeakyRelu Elu HardSigmoid  activations; PRelu with
//	              one slope, or per channel as relu(x) - a relu(-x)
//	Max Min Clip  with constants: clipping, merged along a sequence;
//	              bounds per value clip each kind of bounds with one
//	              activation (gathered, concatenated and put back)
//	Concat        along the channels: nn.Concat; another axis adds a
//	              selection (nn.Gather)
//	Transpose Slice Pad (constant, edge, reflect, wrap)  selections
//	Flatten Reshape Squeeze Unsqueeze Identity Dropout  no node: values
//	              are stored flat, only the shape changes
//	Shape, and Gather Slice Concat Unsqueeze Squeeze Reshape of constants:
//	              folded
//	QuantizeLinear DequantizeLinear Cast ConstantOfShape   (QDQ int8 models)
//	Transformers (graphattn.go; batch size 1): Mul and Div of two computed
//	              tensors, broadcasting by selections: nn.Mul (Div times a
//	              reciprocal); MatMul of two: selections, nn.Mul and an
//	              nn.Sparse sum; Softmax on any axis (opset 13) as
//	              1 / sum_j exp(x_j - x_i); ReduceMean ReduceSum: nn.Sparse;
//	              Exp Sqrt Reciprocal Erf, Pow by 2, 3, 0.5, -1: nn.Unary;
//	              Neg; Split; Gather of a computed tensor: a selection;
//	              LayerNormalization (opset 17) as its decomposition
//
// Consecutive affine nodes are merged where nothing gets larger
// (nn.Graph.Fuse: BatchNormalization into a Conv, scalings, dense
// products); nodes the output does not depend on are dropped.
//
// Read and Decode return the graph's chain (nn.Graph.Chain): a Network
// whose small convolutions, scalings and average pools are lowered to
// dense maps (MaxDenseConvEntries, MaxLoweredEntries; Info.Lowered lists
// them) and whose layers without activation are fused into the next. A
// graph that is no chain (a residual join, a concatenation, a max pool) is
// ErrNotChain, naming the node.
//
// Initializers may be FLOAT, DOUBLE or FLOAT16, in raw_data or in the typed
// fields; graph inputs that have an initializer are constants.
//
// Int8 models in QDQ form, as PyTorch, onnxruntime and TensorRT export
// them (graphqdq.go, ops_qdq.go): a QuantizeLinear of a computed tensor,
// optional no-op Casts, and DequantizeLinear nodes with the same scale and
// zero point (uint8 or int8, scalar or per axis) are one nn.Quantise node,
// however many nodes read the integers; anything else reading them is an
// error naming the node. DequantizeLinear, Cast and ConstantOfShape of
// constants (INT8, UINT8, INT32, INT64 tensors, Constant nodes or
// initializers) are folded: int8 weights and int32 biases become the exact
// float values (k - z) s, and the Gemm's or Conv's record of them
// (nn.IntParams) keeps the scheme for inspect and the writers. Integer
// kernels (QLinearMatMul, QLinearConv, MatMulInteger, ...) are unsupported
// operators.
//
// The graph acts on one sample. A data input of rank >= 2 has a leading
// batch axis (symbolic, as in [N,5] or [batch,1,28,28], or of fixed size),
// except that a leading axis of size 1 ([1,1,1,5]) is an ordinary axis; the
// other axes are flattened in row-major order, so [batch,1,28,28] gives a
// graph with 784 inputs. Reshapes may split and merge the axes of a
// sample, never the batch axis with others.
//
// Anything else is an error naming the node (index, name, op type) and
// wrapping one of the sentinels (ErrUnsupportedOp, ErrNotChain,
// ErrNotConstant, ErrShape, ErrDataType, ErrMalformed, ErrTooLarge).
// Weights that are NaN or infinite are rejected (nn.ErrNotFinite). The
// memory a translation may use is bounded in proportion to the file size,
// so a small file declaring huge shapes fails with ErrTooLarge instead of
// exhausting memory.
//
// # Writing
//
// Write stores a network as IR version 8, opset 13, with DOUBLE
// initializers and one Gemm plus activation nodes per layer; reading the
// file back gives the same parameters bit for bit. A quantised network is
// written in the same QDQ form as PyTorch's, in FLOAT (write_qdq.go), and
// also reads back bit for bit.
package onnx
