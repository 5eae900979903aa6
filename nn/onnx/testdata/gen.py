"""Generate the tiny ONNX graphs of nn/onnx/testdata/graphs and cases.json.

Run with Debian's python3 (python3-onnx 1.12, python3-numpy) from this folder:

    /usr/bin/python3 gen.py

Each case is a small graph exercising one operator or attribute variant,
or a valid ONNX graph that nnbound must reject. cases.json lists for each
file the sample inputs (flattened, one sample each) and the outputs computed
here by an independent float64 numpy evaluation of the graph, or the error
sentinel the reader must return. The output is deterministic.
"""
import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import convref

OUT = "graphs"
rng = np.random.RandomState(20240611)
F32, F64, F16 = TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16
NP = {F32: np.float32, F64: np.float64, F16: np.float16}


def w(*shape, dtype=F32, scale=1.0):
    """Random weights rounded to the tensor type (returned as float64)."""
    return (scale * rng.standard_normal(shape)).astype(NP[dtype]).astype(np.float64)


def tensor(name, a, dtype=F32, raw=True):
    a = np.asarray(a)
    if raw:
        return numpy_helper.from_array(a.astype(NP[dtype]), name)
    vals = a.astype(NP[dtype]).flatten().tolist()
    return helper.make_tensor(name, dtype, list(a.shape), vals)


def itensor(name, vals):
    return numpy_helper.from_array(np.asarray(vals, dtype=np.int64), name)


# ------------------------------------------------------------------ evaluator
def attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def evaluate(model, x):
    """Evaluate the graph in float64 numpy on the input array x."""
    env = {}
    for t in model.graph.initializer:
        a = numpy_helper.to_array(t)
        env[t.name] = a.astype(np.float64) if a.dtype.kind == "f" else a
    env[model.graph.input[0].name] = np.asarray(x, dtype=np.float64)
    for n in model.graph.node:
        a = attrs(n)
        v = [env[i] if i else None for i in n.input]
        op = n.op_type
        if op == "Constant":
            if "value" in a:
                y = numpy_helper.to_array(a["value"])
            elif "value_float" in a:
                y = np.float32(a["value_float"])
            elif "value_floats" in a:
                y = np.asarray(a["value_floats"], dtype=np.float32)
            elif "value_ints" in a:
                y = np.asarray(a["value_ints"], dtype=np.int64)
            y = y.astype(np.float64) if y.dtype.kind == "f" else y
        elif op == "Gemm":
            A, B = v[0], v[1]
            if a.get("transA", 0):
                A = A.T
            if a.get("transB", 0):
                B = B.T
            y = np.float64(np.float32(a.get("alpha", 1.0))) * (A @ B)
            if len(v) > 2 and v[2] is not None:
                y = y + np.float64(np.float32(a.get("beta", 1.0))) * v[2]
        elif op == "MatMul":
            y = np.matmul(v[0], v[1])
        elif op in ("Add", "Sub", "Mul", "Div"):
            y = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide}[op](v[0], v[1])
        elif op in ("Max", "Min"):
            f = np.maximum if op == "Max" else np.minimum
            y = v[0]
            for z in v[1:]:
                y = f(y, z)
        elif op == "Clip":
            lo = a.get("min", -np.inf)
            hi = a.get("max", np.inf)
            if len(v) > 1 and v[1] is not None:
                lo = v[1]
            if len(v) > 2 and v[2] is not None:
                hi = v[2]
            y = np.minimum(np.maximum(v[0], lo), hi)
        elif op == "Relu":
            y = np.maximum(v[0], 0)
        elif op == "Tanh":
            y = np.tanh(v[0])
        elif op == "Sigmoid":
            y = 1 / (1 + np.exp(-v[0]))
        elif op == "LeakyRelu":
            al = np.float64(np.float32(a.get("alpha", 0.01)))
            y = np.where(v[0] >= 0, v[0], al * v[0])
        elif op == "Elu":
            al = np.float64(np.float32(a.get("alpha", 1.0)))
            y = np.where(v[0] >= 0, v[0], al * np.expm1(v[0]))
        elif op == "PRelu":
            y = np.where(v[0] >= 0, v[0], v[1] * v[0])
        elif op == "Identity":
            y = v[0]
        elif op == "Flatten":
            ax = a.get("axis", 1)
            s = v[0].shape
            ax = ax + len(s) if ax < 0 else ax
            y = v[0].reshape(int(np.prod(s[:ax])), -1)
        elif op == "Reshape":
            shp = [int(d) for d in v[1]]
            shp = [v[0].shape[i] if d == 0 else d for i, d in enumerate(shp)]
            y = v[0].reshape(shp)
        elif op == "Squeeze":
            axes = a.get("axes") if len(v) < 2 else [int(d) for d in v[1]]
            y = np.squeeze(v[0], axis=tuple(axes)) if axes is not None else np.squeeze(v[0])
        elif op == "Unsqueeze":
            axes = a.get("axes") if len(v) < 2 else [int(d) for d in v[1]]
            y = v[0]
            for ax in sorted(d % (y.ndim + len(axes)) for d in axes):
                y = np.expand_dims(y, ax)
        elif op == "Conv":
            y = convref.conv(a, v[0], v[1], v[2] if len(v) > 2 else None)
        elif op == "AveragePool":
            y = convref.average_pool(a, v[0])
        elif op == "GlobalAveragePool":
            y = convref.global_average_pool(v[0])
        elif op == "BatchNormalization":
            y = convref.batch_norm(a, *v)
        else:
            raise ValueError(op)
        env[n.output[0]] = y
    return env[model.graph.output[0].name]


# ------------------------------------------------------------------ cases
cases = []


def model(name, nodes, inits, in_shape, out_shape, opset=13, ir=None, dtype=F32,
          extra_inputs=(), check=True, domain_opsets=()):
    g = helper.make_graph(nodes, name,
                          [helper.make_tensor_value_info("x", dtype, in_shape)] + list(extra_inputs),
                          [helper.make_tensor_value_info("y", dtype, out_shape)], inits)
    ops = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in domain_opsets]
    m = helper.make_model(g, opset_imports=ops, producer_name="nnbound-testdata")
    if ir is not None:
        m.ir_version = ir
    if check:
        onnx.checker.check_model(m, full_check=True)
    with open(os.path.join(OUT, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())
    return m


def good(name, desc, nodes, inits, in_shape, out_shape, acts=None, batch_out=0, n=5, x=None,
         fixed_batch=False, chain=True, **kw):
    """A supported graph: evaluate it on n samples. The entry "N" of in_shape
    is the batch axis (or, with fixed_batch, the first axis); batch_out is
    the batch axis of the output. Without a batch axis the graph is
    evaluated sample by sample. A graph that is no chain (chain=False) is
    read by ReadGraph only; Read must refuse it."""
    m = model(name, nodes, inits, in_shape, out_shape, **kw)
    if fixed_batch:
        n = in_shape[0]
        in_shape = ["N"] + in_shape[1:]
    sample = [d for d in in_shape if d != "N"]
    if x is None:
        x = rng.uniform(-2, 2, size=[n] + sample)
    x = np.asarray(x, dtype=np.float64).reshape([len(x)] + sample)
    if "N" in in_shape:
        xb = np.moveaxis(x, 0, in_shape.index("N"))
        y = np.moveaxis(evaluate(m, xb), batch_out, 0).reshape(len(x), -1)
    else:
        y = np.stack([np.asarray(evaluate(m, s)).reshape(-1) for s in x])
    c = {"file": name + ".onnx", "desc": desc,
         "inputs": x.reshape(len(x), -1).tolist(), "outputs": y.tolist()}
    if acts is not None:
        c["acts"] = acts
    if not chain:
        c["not_chain"] = True
    cases.append(c)


def bad(name, desc, err, nodes, inits, in_shape, out_shape, **kw):
    """A graph the reader must reject with the sentinel err."""
    model(name, nodes, inits, in_shape, out_shape, **kw)
    cases.append({"file": name + ".onnx", "desc": desc, "error": err})


N = helper.make_node
os.makedirs(OUT, exist_ok=True)

# Gemm variants.
W, b = w(4, 3), w(4)
good("gemm_transB", "Gemm(x, W[out,in], b, transB=1)",
     [N("Gemm", ["x", "W", "b"], ["y"], transB=1)], [tensor("W", W), tensor("b", b)],
     ["N", 3], ["N", 4], acts=["identity"])
W, C = w(3, 4), w(1, 4)
good("gemm_alpha_beta", "Gemm alpha=0.5 beta=2, W[in,out], 2-D bias [1,4]",
     [N("Gemm", ["x", "W", "C"], ["y"], alpha=0.5, beta=2.0)], [tensor("W", W), tensor("C", C)],
     ["N", 3], ["N", 4])
good("gemm_no_bias", "Gemm without C",
     [N("Gemm", ["x", "W"], ["y"])], [tensor("W", w(3, 2))], ["N", 3], ["N", 2])
W1, W2, b2 = w(4, 3), w(4, 2), w(2)
good("gemm_data_as_B_then_transA",
     "Gemm(W1, x, transB=1) puts samples in columns [4,N]; Gemm(h, W2, transA=1) brings them back",
     [N("Gemm", ["W1", "x"], ["h"], transB=1), N("Relu", ["h"], ["r"]),
      N("Gemm", ["r", "W2", "b2"], ["y"], transA=1)],
     [tensor("W1", W1), tensor("W2", W2), tensor("b2", b2)], ["N", 3], ["N", 2],
     acts=["relu", "identity"])
good("gemm_data_as_B_out", "Gemm(W, x, C[4,1], transB=1): output [4,N]",
     [N("Gemm", ["W", "x", "C"], ["y"], transB=1)], [tensor("W", w(4, 3)), tensor("C", w(4, 1))],
     ["N", 3], [4, "N"], batch_out=1)
good("gemm_transA_weight", "Gemm(A=W stored [k,m], x, transA=1, transB=1)",
     [N("Gemm", ["W", "x"], ["y"], transA=1, transB=1)], [tensor("W", w(3, 4))],
     ["N", 3], [4, "N"], batch_out=1)

# MatMul variants.
good("matmul_xw_add", "MatMul(x, W[in,out]) + Add(b, h) with the bias first",
     [N("MatMul", ["x", "W"], ["h"]), N("Add", ["b", "h"], ["y"])],
     [tensor("W", w(3, 4)), tensor("b", w(4))], ["N", 3], ["N", 4], acts=["identity"])
good("matmul_wx_1d", "1-D input, MatMul(W[out,in], x) as sisl writes it",
     [N("MatMul", ["W", "x"], ["h"]), N("Add", ["h", "b"], ["r"]), N("Relu", ["r"], ["y"])],
     [tensor("W", w(4, 3)), tensor("b", w(4))], [3], [4], acts=["relu"])
good("matmul_3d_kron", "[N,2,3] @ W[3,4] acts on the last axis of each of 2 rows, then Flatten",
     [N("MatMul", ["x", "W"], ["h"]), N("Flatten", ["h"], ["y"])],
     [tensor("W", w(3, 4))], ["N", 2, 3], ["N", 8])
good("matmul_wx_3d", "W[4,3] @ x[N,3,2] acts on the second-last axis",
     [N("MatMul", ["W", "x"], ["h"]), N("Flatten", ["h"], ["y"])],
     [tensor("W", w(4, 3))], ["N", 3, 2], ["N", 8])
good("matmul_vector", "x @ w[3] drops the axis: [N,3] -> [N]",
     [N("MatMul", ["x", "w"], ["y"])], [tensor("w", w(3))], ["N", 3], ["N"])
good("matmul_w3d", "W with a leading unit axis [1,3,4]: output [1,N,4]",
     [N("MatMul", ["x", "W"], ["y"])], [tensor("W", w(1, 3, 4))], ["N", 3], [1, "N", 4], batch_out=1)

# Elementwise arithmetic with constants on either side.
good("arith_chain", "Sub(x, m), Div(., r), Mul(s, .), Add(., c), Sub(k, .) fused into one affine map",
     [N("Sub", ["x", "m"], ["a"]), N("Div", ["a", "r"], ["b"]), N("Mul", ["s", "b"], ["c"]),
      N("Add", ["c", "c0"], ["d"]), N("Sub", ["k", "d"], ["e"]), N("Gemm", ["e", "W"], ["y"], transB=1)],
     [tensor("m", w(3)), tensor("r", np.abs(w(3)) + 0.5), tensor("s", w(1)), tensor("c0", w(1, 3)),
      tensor("k", w(3)), tensor("W", w(2, 3))], ["N", 3], ["N", 2], acts=["identity"])
good("arith_scalars", "scalar (rank-0) constants", [
    N("Mul", ["x", "s"], ["a"]), N("Div", ["a", "d"], ["b"]), N("Add", ["b", "c"], ["y"])],
     [tensor("s", np.float64(1.5)), tensor("d", np.float64(4.0)), tensor("c", np.float64(-0.25))],
     ["N", 3], ["N", 3], acts=["identity"])
good("broadcast_expand", "x[N,1] + C[1,3] replicates the single input",
     [N("Add", ["x", "C"], ["h"]), N("Relu", ["h"], ["y"])], [tensor("C", w(1, 3))],
     ["N", 1], ["N", 3], acts=["relu"])
good("broadcast_rank", "x[N,3] * C[2,1,3] adds a leading axis: output [2,N,3]",
     [N("Mul", ["x", "C"], ["y"])], [tensor("C", w(2, 1, 3))], ["N", 3], [2, "N", 3], batch_out=1)

# Clipping.
edge = [[-3, -0.5, 0.5], [3, 0.7, -0.7], [0, 0, 0], [-0.5, 0.7, 1], [1.5, -1.5, 0.1]]
good("maxmin_hardtanh", "Max(x, -0.5) then Min(., 0.7): one HardTanh layer",
     [N("Max", ["x", "lo"], ["a"]), N("Min", ["a", "hi"], ["y"])],
     [tensor("lo", np.float64(-0.5)), tensor("hi", np.float64(0.7))], ["N", 3], ["N", 3],
     acts=["hardtanh"], x=edge + rng.uniform(-2, 2, (5, 3)).tolist())
good("minmax_vector", "Min(x, hi[3]) then Max(., lo[3]), per coordinate (ACAS Xu style)",
     [N("Min", ["x", "hi"], ["a"]), N("Max", ["a", "lo"], ["h"]), N("Gemm", ["h", "W"], ["y"], transB=1)],
     [tensor("lo", [-1, 0, 0.25]), tensor("hi", [1, 2, 0.5]), tensor("W", w(2, 3))], ["N", 3], ["N", 2],
     acts=["hardtanh", "identity"], x=edge + rng.uniform(-2, 2, (5, 3)).tolist())
good("max_vector", "Max(x, c[3]) only: ReLU form", [N("Max", ["x", "c"], ["y"])],
     [tensor("c", [-1, 0, 0.5])], ["N", 3], ["N", 3], acts=["relu", "identity"], x=edge)
good("max_zero", "Max(x, 0) is a ReLU", [N("Max", ["x", "z"], ["y"])],
     [tensor("z", np.float64(0))], ["N", 3], ["N", 3], acts=["relu"], x=edge)
good("min_mixed", "Min(x, d) with an infinite coordinate, then Max(., c) on others",
     [N("Min", ["x", "d"], ["a"]), N("Max", ["a", "c"], ["y"])],
     [tensor("d", [np.inf, 0.5, 0.3]), tensor("c", [-np.inf, -np.inf, -0.2])], ["N", 3], ["N", 3],
     acts=["relu", "identity"], x=edge)
good("max_variadic", "Max(x, c1, c2) and Min crossing the lower bound (constant coordinates)",
     [N("Max", ["x", "c1", "c2"], ["a"]), N("Min", ["a", "d"], ["y"])],
     [tensor("c1", [-1, 0, 0.5]), tensor("c2", np.float64(-0.25)), tensor("d", [1, -0.5, 2])],
     ["N", 3], ["N", 3], x=edge)
good("clip_attrs_opset6", "Clip with min/max attributes (opset 6)",
     [N("Clip", ["x"], ["y"], min=-0.5, max=0.7)], [], ["N", 3], ["N", 3], opset=6,
     acts=["hardtanh"], x=edge)
good("clip_inputs", "Clip(x, min, max) inputs (opset 13)",
     [N("Clip", ["x", "lo", "hi"], ["y"])], [tensor("lo", np.float32(-0.5)), tensor("hi", np.float32(0.7))],
     ["N", 3], ["N", 3], acts=["hardtanh"], x=edge)
good("clip_max_only", "Clip(x, \"\", max): only an upper bound",
     [N("Clip", ["x", "", "hi"], ["y"])], [tensor("hi", np.float32(0.7))],
     ["N", 3], ["N", 3], acts=["relu", "identity"], x=edge)
good("clip_min_zero", "Clip(x, 0) is a ReLU", [N("Clip", ["x", "lo"], ["y"])],
     [tensor("lo", np.float32(0))], ["N", 3], ["N", 3], acts=["relu"], x=edge)
good("clip_then_clip", "Clip(-1, 1) then Clip(-0.5, 2): one HardTanh(-0.5, 1)",
     [N("Clip", ["x", "a", "b"], ["h"]), N("Clip", ["h", "c", "d"], ["y"])],
     [tensor("a", np.float32(-1)), tensor("b", np.float32(1)), tensor("c", np.float32(-0.5)),
      tensor("d", np.float32(2))], ["N", 3], ["N", 3], acts=["hardtanh"], x=edge)

# Activations.
for op, kw, act in [("Relu", {}, "relu"), ("Tanh", {}, "tanh"), ("Sigmoid", {}, "sigmoid"),
                    ("LeakyRelu", {}, "leaky_relu"), ("LeakyRelu", {"alpha": 0.2}, "leaky_relu"),
                    ("Elu", {}, "elu"), ("Elu", {"alpha": 0.5}, "elu")]:
    name = "act_" + op.lower() + ("_alpha" if kw else "")
    good(name, "Gemm then %s %s" % (op, kw),
         [N("Gemm", ["x", "W", "b"], ["h"], transB=1), N(op, ["h"], ["y"], **kw)],
         [tensor("W", w(4, 3)), tensor("b", w(4))], ["N", 3], ["N", 4], acts=[act])
good("act_prelu", "PRelu with a [1] slope is a LeakyReLU",
     [N("Gemm", ["x", "W"], ["h"], transB=1), N("PRelu", ["h", "s"], ["y"])],
     [tensor("W", w(4, 3, dtype=F64), F64), tensor("s", [0.3], dtype=F64)], ["N", 3], ["N", 4], dtype=F64,
     acts=["leaky_relu"])
good("act_elu_prelu", "Elu(alpha=1) then PRelu(0.3) is ELU(0.3) (how nnbound stores such alphas)",
     [N("Gemm", ["x", "W"], ["h"], transB=1), N("Elu", ["h"], ["e"], alpha=1.0), N("PRelu", ["e", "s"], ["y"])],
     [tensor("W", w(4, 3, dtype=F64), F64), tensor("s", [0.3], dtype=F64)], ["N", 3], ["N", 4], dtype=F64,
     acts=["elu"])
good("act_relu_first", "Relu straight on the input, twice: one ReLU layer",
     [N("Relu", ["x"], ["h"]), N("Relu", ["h"], ["y"])], [], ["N", 3], ["N", 3], acts=["relu"])
good("relu6", "Relu then Min(6) is one HardTanh(0, 6) layer",
     [N("Gemm", ["x", "W"], ["h"], transB=1), N("Relu", ["h"], ["r"]), N("Min", ["r", "six"], ["y"])],
     [tensor("W", w(4, 3, scale=4)), tensor("six", np.float32(6))], ["N", 3], ["N", 4], acts=["hardtanh"])

# Shape operators.
good("reshape_constant_node", "Constant shape [-1, 6] then Reshape, as pytorch exports MNIST models",
     [N("Constant", [], ["s"], value=itensor("sv", [-1, 6])), N("Reshape", ["x", "s"], ["h"]),
      N("Gemm", ["h", "W"], ["y"], transB=1)],
     [tensor("W", w(2, 6))], ["N", 1, 2, 3], ["N", 2])
good("reshape_copy_zero", "Reshape [0, 3, 2] copies the batch axis and splits the features",
     [N("Reshape", ["x", "s"], ["h"]), N("MatMul", ["h", "W"], ["m"]), N("Flatten", ["m"], ["y"])],
     [itensor("s", [0, 3, 2]), tensor("W", w(2, 2))], ["N", 6], ["N", 6])
good("flatten_negative_axis", "Flatten(axis=-2) of [N,2,3] is [N,6]",
     [N("Flatten", ["x"], ["y"], axis=-2)], [], ["N", 2, 3], ["N", 6])
good("squeeze_unsqueeze_13", "Unsqueeze then Squeeze with axes inputs (opset 13)",
     [N("Unsqueeze", ["x", "a"], ["h"]), N("Squeeze", ["h", "a"], ["q"]),
      N("Gemm", ["q", "W"], ["y"], transB=1)],
     [itensor("a", [1]), tensor("W", w(2, 3))], ["N", 3], ["N", 2])
good("squeeze_unsqueeze_11", "Unsqueeze(axes=[-1]) then Squeeze(axes=[2]) attributes (opset 11)",
     [N("Unsqueeze", ["x"], ["h"], axes=[-1]), N("Squeeze", ["h"], ["y"], axes=[2])],
     [], ["N", 3], ["N", 3], opset=11)
good("identity_nodes", "Identity nodes, also of a constant",
     [N("Identity", ["x"], ["h"]), N("Identity", ["W0"], ["W"]), N("Gemm", ["h", "W"], ["g"], transB=1),
      N("Identity", ["g"], ["y"])], [tensor("W0", w(2, 3))], ["N", 3], ["N", 2])
good("fixed_leading_ones", "Input [1,1,1,3] (MATLAB style) then Flatten",
     [N("Sub", ["x", "z"], ["h"]), N("Flatten", ["h"], ["f"]), N("MatMul", ["f", "W"], ["y"])],
     [tensor("z", w(1, 1, 1, 3)), tensor("W", w(3, 2))], [1, 1, 1, 3], [1, 2])
good("fixed_batch", "Input [2,3] with a fixed batch of 2", [N("Gemm", ["x", "W"], ["y"], transB=1)],
     [tensor("W", w(2, 3))], [2, 3], [2, 2], fixed_batch=True)

# Tensor encodings.
good("typed_float_data", "FLOAT initializers in float_data (not raw_data)",
     [N("Gemm", ["x", "W", "b"], ["y"], transB=1)],
     [tensor("W", w(2, 3), raw=False), tensor("b", w(2), raw=False)], ["N", 3], ["N", 2])
good("typed_double_data", "DOUBLE initializers in double_data",
     [N("Gemm", ["x", "W", "b"], ["y"], transB=1)],
     [tensor("W", w(2, 3, dtype=F64), F64, raw=False), tensor("b", w(2, dtype=F64), F64, raw=False)],
     ["N", 3], ["N", 2], dtype=F64)
good("float16_typed", "FLOAT16 initializers in int32_data",
     [N("Gemm", ["x", "W", "b"], ["y"], transB=1)],
     [tensor("W", w(2, 3, dtype=F16), F16, raw=False), tensor("b", w(2, dtype=F16), F16, raw=False)],
     ["N", 3], ["N", 2], dtype=F16)
good("float16_raw", "FLOAT16 initializers in raw_data",
     [N("Gemm", ["x", "W", "b"], ["y"], transB=1)],
     [tensor("W", w(2, 3, dtype=F16), F16), tensor("b", w(2, dtype=F16), F16)], ["N", 3], ["N", 2], dtype=F16)
Wg, bg = w(2, 3), w(2)
good("inits_as_inputs", "IR 3 style: initializers also listed as graph inputs",
     [N("Gemm", ["x", "W", "b"], ["y"], transB=1)], [tensor("W", Wg), tensor("b", bg)], ["N", 3], ["N", 2],
     ir=3, opset=8, extra_inputs=[helper.make_tensor_value_info("W", F32, [2, 3]),
                                  helper.make_tensor_value_info("b", F32, [2])])
good("constant_value_floats", "Constant value_float / value_floats attributes (opset 13)",
     [N("Constant", [], ["c"], value_floats=[0.5, -1.0, 2.0]), N("Constant", [], ["s"], value_float=3.0),
      N("Mul", ["x", "c"], ["h"]), N("Add", ["h", "s"], ["y"])], [], ["N", 3], ["N", 3])

# Valid ONNX that nnbound rejects.
bad("bad_two_inputs", "two data inputs", "ErrNotChain",
    [N("Add", ["x", "z"], ["y"])], [], ["N", 3], ["N", 3],
    extra_inputs=[helper.make_tensor_value_info("z", F32, ["N", 3])])
# Graphs that are no chain, and the inputs of the cases that were errors
# of the chain reader (their own generator, so that the other cases keep
# their random values).
rng_graph = np.random.RandomState(20261206)
good("bad_branch", "a value read by two nodes (a graph, no chain)",
     [N("Relu", ["x"], ["h"]), N("Gemm", ["h", "W"], ["a"], transB=1), N("Gemm", ["h", "W"], ["b"], transB=1),
      N("Add", ["a", "b"], ["y"])], [tensor("W", w(3, 3))], ["N", 3], ["N", 3], chain=False,
     x=rng_graph.uniform(-2, 2, (5, 3)))
good("bad_data_twice", "Add(x, x) reads the data twice (a graph, no chain)",
     [N("Add", ["x", "x"], ["y"])], [], ["N", 3], ["N", 3], chain=False, x=rng_graph.uniform(-2, 2, (5, 3)))
good("bad_output_not_end", "the output is not the last node: the nodes after it are dropped",
     [N("Relu", ["x"], ["y"]), N("Tanh", ["y"], ["t"])], [], ["N", 3], ["N", 3], acts=["relu"],
     x=rng_graph.uniform(-2, 2, (5, 3)))
bad("bad_constant_folding", "a node computing on constants only (Add is not folded)", "ErrUnsupportedOp",
    [N("Add", ["a", "a"], ["c"]), N("Add", ["x", "c"], ["y"])], [tensor("a", w(3))], ["N", 3], ["N", 3])
bad("bad_unsupported_op", "Softmax", "ErrUnsupportedOp",
    [N("Softmax", ["x"], ["y"])], [], ["N", 3], ["N", 3])
bad("bad_div_by_data", "Div(c, x) is not affine", "ErrUnsupportedOp",
    [N("Div", ["c", "x"], ["y"])], [tensor("c", w(3))], ["N", 3], ["N", 3])
good("bad_prelu_channels", "PRelu with per-channel slopes: relu(x) - a relu(-x), a graph",
     [N("PRelu", ["x", "s"], ["y"])], [tensor("s", [0.1, 0.2, 0.3])], ["N", 3], ["N", 3], chain=False,
     x=rng_graph.uniform(-2, 2, (5, 3)))
bad("bad_domain", "an operator of another domain", "ErrUnsupportedOp",
    [N("Relu", ["x"], ["y"], domain="com.example")], [], ["N", 3], ["N", 3], check=False,
    domain_opsets=[("com.example", 1)])
bad("bad_gemm_data_bias", "Gemm with the data as the bias C", "ErrNotConstant",
    [N("Gemm", ["A", "B", "x"], ["y"])], [tensor("A", w(3, 2)), tensor("B", w(2, 3))], ["N", 3], ["N", 3])
bad("bad_reshape_batch", "Reshape [N,6] -> [-1,3] moves values between samples", "ErrShape",
    [N("Reshape", ["x", "s"], ["y"])], [itensor("s", [-1, 3])], ["N", 6], ["M", 3])
bad("bad_flatten_batch", "Flatten(axis=2) of [N,2,3] merges the batch axis", "ErrShape",
    [N("Flatten", ["x"], ["y"], axis=2)], [], ["N", 2, 3], ["M", 3])
bad("bad_broadcast_batch", "a constant that varies along the batch axis", "ErrShape",
    [N("Add", ["x", "c"], ["y"])], [tensor("c", w(2, 3))], [2, 3], [2, 3])
bad("bad_symbolic_feature", "a symbolic feature dimension", "ErrShape",
    [N("Relu", ["x"], ["y"])], [], ["N", "M"], ["N", "M"])
bad("bad_nan_weight", "a NaN weight", "ErrNotFinite",
    [N("Gemm", ["x", "W"], ["y"], transB=1)], [tensor("W", [[1, np.nan, 2]])], ["N", 3], ["N", 1])
bad("bad_div_zero", "division by a zero constant", "ErrNotFinite",
    [N("Div", ["x", "c"], ["y"])], [tensor("c", [1, 0, 2])], ["N", 3], ["N", 3])
bad("bad_gemm_shape", "a weight whose size does not fit the input", "ErrShape",
    [N("Gemm", ["x", "W"], ["y"], transB=1)], [tensor("W", w(2, 4))], ["N", 3], ["N", 2], check=False)

# Convolutions, pooling, batch normalisation, residual blocks (cases_conv.py).
exec(open("cases_conv.py").read())

with open("cases.json", "w") as f:
    json.dump({"note": "made by gen.py; outputs evaluated in float64 numpy", "cases": cases}, f, indent=1)
    f.write("\n")
print(len(cases), "cases")
