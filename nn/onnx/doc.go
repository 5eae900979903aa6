// Package onnx reads feed-forward networks from ONNX files and writes them.
//
// # Reading
//
// Read and Decode translate a graph that is a single chain from one data
// input (a graph input without an initializer) to one output into an
// nn.Network, exactly: every operator becomes an affine map, an activation,
// or an elementwise clipping written with HardTanh/ReLU layers (nn.Clip).
// Consecutive affine maps are fused, so
//
//	x -> Sub(mean) -> Div(range) -> Gemm -> Relu -> MatMul -> Add -> ...
//
// becomes layers relu(W1 x + b1), W2 h + b2, ... The operators (default
// domain, any opset) are
//
//	Gemm          alpha, beta, transA, transB; the data may be A or B
//	MatMul        X W or W X, W 2-D (or with leading unit axes) or 1-D
//	Add Sub Mul   with a constant on either side, broadcast (scalars,
//	Div           per-feature vectors); Div only by a constant
//	Max Min Clip  with constants: clipping (Clip bounds from attributes in
//	              opset < 11, from inputs since); Max/Min/Clip sequences
//	              merge into one clipping, a uniform one is a HardTanh
//	Relu Tanh Sigmoid LeakyRelu Elu, PRelu with one slope
//	Flatten Reshape Squeeze Unsqueeze Identity Constant
//	Conv          2-D on [N,C,H,W]: strides, pads (also asymmetric),
//	              dilations, group, with or without bias, auto_pad NOTSET,
//	              VALID, SAME_UPPER, SAME_LOWER
//	AveragePool   2-D, count_include_pad 0 or 1; GlobalAveragePool
//	BatchNormalization  inference mode, folded into the neighbouring
//	              affine maps in float64
//	Add           of the data h and a branch from h: a residual block
//	              h + g(h), g a chain of affine maps and ReLU, written
//	              exactly as a chain by carrying h as relu(h) - relu(-h)
//	              through g's ReLU layers (residual.go)
//
// Conv, AveragePool and GlobalAveragePool are lowered to dense affine maps
// over the flattened sample (row-major C,H,W), since every layer of an
// nn.Network is dense; one node may give at most MaxLoweredEntries (2^24)
// matrix entries, a larger one is ErrTooLarge (structured convolution is
// not supported yet). Info.Lowered lists what was lowered. MaxPool is not
// read.
//
//	QuantizeLinear DequantizeLinear Cast ConstantOfShape   (QDQ int8 models)
//
// Initializers may be FLOAT, DOUBLE or FLOAT16, in raw_data or in the typed
// fields; graph inputs that have an initializer are constants.
//
// Int8 models in QDQ form, as PyTorch, onnxruntime and TensorRT export
// them (ops_qdq.go): a QuantizeLinear of the data, an optional no-op Cast,
// and a DequantizeLinear with the same scale and zero point (uint8 or
// int8, scalar or per axis) is one nn.Quantiser, kept on the network's
// input, on a layer's pre-activation or on its output. DequantizeLinear,
// Cast and ConstantOfShape of constants (INT8, UINT8, INT32, INT64 tensors,
// Constant nodes or initializers) are folded: int8 weights and int32
// biases become the exact float values (k - z) s, and a Gemm's record of
// them (nn.IntParams) keeps the scheme for inspect and the writer. Integer
// kernels (QLinearMatMul, QLinearConv, MatMulInteger, ...) are unsupported
// operators.
//
// The network acts on one sample. A data input of rank >= 2 has a leading
// batch axis (symbolic, as in [N,5] or [batch,1,28,28], or of fixed size),
// except that a leading axis of size 1 ([1,1,1,5]) is an ordinary axis; the
// other axes are flattened in row-major order, so [batch,1,28,28] gives a
// network with 784 inputs. Reshapes may split and merge the axes of a
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
// # Reading graphs
//
// ReadGraph and DecodeGraph translate any DAG from one data input to one
// output into an nn.Graph of structured operations (graphread.go), with
// the same decoding, constants, shapes and budget:
//
//	Gemm MatMul BatchNormalization        dense and scaling affine nodes
//	Add Sub Mul Div                       with a constant: a scaling with a
//	                                      bias; Add and Sub of two computed
//	                                      tensors of one shape: nn.Add
//	Conv                                  an nn.Conv2D (never a matrix)
//	MaxPool AveragePool GlobalAveragePool nn.MaxPool, nn.AvgPool2D (ceil_mode,
//	                                      count_include_pad, dilations)
//	Relu LeakyRelu Tanh Sigmoid Elu       activations; PRelu with slopes per
//	HardSigmoid PRelu Clip Max Min        value as relu(x) - a relu(-x);
//	                                      clippings with bounds per value
//	Concat Transpose Pad                  nn.Concat and selections (nn.Gather)
//	Flatten Reshape Squeeze Unsqueeze     no node: only the shape changes
//	Identity Dropout Cast                 (Cast of floats and the no-op Cast
//	                                      of quantised integers)
//	QuantizeLinear DequantizeLinear       one nn.Quantise node per quantised
//	                                      tensor, however many nodes read it
//	Shape, and Gather Concat Unsqueeze Squeeze Reshape of constants: folded
//
// Consecutive affine nodes are then merged where that makes nothing larger
// (nn.Graph.Fuse). Nodes the output does not depend on are dropped.
//
// # Writing
//
// Write stores a network as IR version 8, opset 13, with DOUBLE
// initializers and one Gemm plus activation nodes per layer; reading the
// file back gives the same parameters bit for bit. A quantised network is
// written in the same QDQ form as PyTorch's, in FLOAT (write_qdq.go), and
// also reads back bit for bit.
package onnx
