"""Generate the small DAG models of nn/onnx/testdata/dag and dag/cases.json.

Run with Debian's python3 (python3-onnx 1.12, python3-numpy) from this folder:

    /usr/bin/python3 gen_dag.py

Each case is a graph that is no chain (residual joins, concatenations, a
tensor read twice, max pooling) or uses an operator only the graph reader
reads (Transpose, Pad, PRelu per channel, HardSigmoid, MaxPool, Shape
arithmetic, quantised tensors read twice). cases.json lists for each file
the sample inputs (flattened, one sample each) and the outputs of the
independent float64 numpy evaluator below (written from the operator
specification), or the error sentinel the reader must return. The output is
deterministic.
"""
import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import convref

OUT = "dag"
rng = np.random.RandomState(20261206)
F64 = TensorProto.DOUBLE
N = helper.make_node


def w(*shape, scale=1.0):
    return scale * rng.standard_normal(shape)


def t(name, a):
    """A DOUBLE tensor of float32 values (so that quantised models can be written as QDQ files)."""
    return numpy_helper.from_array(np.asarray(a, dtype=np.float32).astype(np.float64), name)


def it(name, a, dtype=np.int64):
    return numpy_helper.from_array(np.asarray(a, dtype=dtype), name)


def attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def pool(a, x, op):
    """MaxPool / AveragePool with pads, strides, dilations and ceil_mode."""
    k = list(a["kernel_shape"])
    s = list(a.get("strides", [1, 1]))
    d = list(a.get("dilations", [1, 1]))
    p = list(a.get("pads", [0, 0, 0, 0]))
    H = x.shape[2:]
    out = []
    for ax in range(2):
        full = H[ax] + p[ax] + p[ax + 2] - ((k[ax] - 1) * d[ax] + 1)
        o = (-(-full // s[ax]) if a.get("ceil_mode", 0) else full // s[ax]) + 1
        if a.get("ceil_mode", 0) and (o - 1) * s[ax] >= H[ax] + p[ax]:
            o -= 1
        out.append(o)
    y = np.zeros(x.shape[:2] + tuple(out))
    for oh in range(out[0]):
        for ow in range(out[1]):
            vals = []
            for th in range(k[0]):
                for tw in range(k[1]):
                    ih, iw = oh * s[0] - p[0] + th * d[0], ow * s[1] - p[1] + tw * d[1]
                    if 0 <= ih < H[0] and 0 <= iw < H[1]:
                        vals.append(x[:, :, ih, iw])
            v = np.stack(vals)
            if op == "MaxPool":
                y[:, :, oh, ow] = v.max(axis=0)
            elif a.get("count_include_pad", 0):
                y[:, :, oh, ow] = v.sum(axis=0) / (k[0] * k[1])
            else:
                y[:, :, oh, ow] = v.sum(axis=0) / len(vals)
    return y


def quantise(x, s, z, dtype):
    info = np.iinfo(dtype)
    return np.clip(np.round(x / s) + z, info.min, info.max).astype(dtype)


def pad(a, v):
    mode = a.get("mode", b"constant").decode()
    pads = [int(p) for p in v[1]]
    r = v[0].ndim
    width = [(pads[i], pads[i + r]) for i in range(r)]
    if mode == "constant":
        c = 0.0 if len(v) < 3 or v[2] is None else float(v[2])
        return np.pad(v[0], width, mode="constant", constant_values=c)
    return np.pad(v[0], width, mode={"edge": "edge", "reflect": "reflect", "wrap": "wrap"}[mode])


def step(op, a, v):
    """One node of the float64 evaluation."""
    if op == "Gemm":
        A, B = v[0], v[1]
        A = A.T if a.get("transA", 0) else A
        B = B.T if a.get("transB", 0) else B
        return A @ B + (v[2] if len(v) > 2 else 0)
    simple = {
        "MatMul": lambda: v[0] @ v[1], "Add": lambda: v[0] + v[1], "Sub": lambda: v[0] - v[1],
        "Mul": lambda: v[0] * v[1], "Div": lambda: v[0] / v[1], "Relu": lambda: np.maximum(v[0], 0),
        "Tanh": lambda: np.tanh(v[0]), "Sigmoid": lambda: 1 / (1 + np.exp(-v[0])),
        "PRelu": lambda: np.where(v[0] >= 0, v[0], v[1] * v[0]), "Identity": lambda: v[0],
        "Max": lambda: np.maximum(v[0], v[1]), "Min": lambda: np.minimum(v[0], v[1]),
        "Shape": lambda: np.asarray(v[0].shape, dtype=np.int64),
        "Transpose": lambda: np.transpose(v[0], a.get("perm")),
        "Concat": lambda: np.concatenate(v, axis=a["axis"]),
        "Gather": lambda: np.take(v[0], v[1], axis=a.get("axis", 0)),
        "Unsqueeze": lambda: np.expand_dims(v[0], tuple(int(d) for d in v[1])),
        "Reshape": lambda: v[0].reshape([v[0].shape[i] if d == 0 else int(d) for i, d in enumerate(v[1])]),
        "Flatten": lambda: v[0].reshape(int(np.prod(v[0].shape[:a.get("axis", 1)])), -1),
        "GlobalAveragePool": lambda: convref.global_average_pool(v[0]),
        "Conv": lambda: convref.conv(a, v[0], v[1], v[2] if len(v) > 2 else None),
        "BatchNormalization": lambda: convref.batch_norm(a, *v),
        "Pad": lambda: pad(a, v),
        "Cast": lambda: v[0],
    }
    if op in simple:
        return simple[op]()
    if op == "HardSigmoid":
        al, be = np.float64(np.float32(a.get("alpha", 0.2))), np.float64(np.float32(a.get("beta", 0.5)))
        return np.clip(al * v[0] + be, 0, 1)
    if op == "LeakyRelu":
        return np.where(v[0] >= 0, v[0], np.float64(np.float32(a.get("alpha", 0.01))) * v[0])
    if op == "Elu":
        return np.where(v[0] >= 0, v[0], np.float64(np.float32(a.get("alpha", 1.0))) * np.expm1(v[0]))
    if op == "Clip":
        return np.minimum(np.maximum(v[0], v[1]), v[2])
    if op in ("MaxPool", "AveragePool"):
        return pool(a, v[0], op)
    if op == "Slice":
        starts, ends = [int(v) for v in v[1]], [int(v) for v in v[2]]
        axes = [int(a) for a in v[3]] if len(v) > 3 and v[3] is not None else list(range(len(starts)))
        steps = [int(a) for a in v[4]] if len(v) > 4 and v[4] is not None else [1] * len(starts)
        index = [slice(None)] * v[0].ndim
        for st, en, ax, sp in zip(starts, ends, axes, steps):
            index[ax] = slice(st, en, sp)  # numpy clamps as ONNX does
        return v[0][tuple(index)]
    if op == "Dropout":
        return v[0]
    if op == "QuantizeLinear":
        return quantise(v[0], v[1], v[2], v[2].dtype)
    if op == "DequantizeLinear":
        z = v[2].astype(np.float64) if len(v) > 2 else np.zeros_like(v[1])
        s, ax = v[1], a.get("axis", 1)
        if np.ndim(s) == 1:  # per axis
            shape = [1] * v[0].ndim
            shape[ax] = -1
            s, z = s.reshape(shape), z.reshape(shape)
        return (v[0].astype(np.float64) - z) * s
    raise ValueError(op)


def evaluate(m, x):
    env = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    env[m.graph.input[0].name] = x
    for n in m.graph.node:
        v = [env[i] if i else None for i in n.input]
        env[n.output[0]] = step(n.op_type, attrs(n), v)
    return env[m.graph.output[0].name]


cases = []


def model(name, nodes, inits, in_shape, opset=13, out_rank=2):
    """The model, its output of shape [N, ...] (of rank out_rank)."""
    out = ["N"] + ["d%d" % i for i in range(1, out_rank)]
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", F64, in_shape)],
                          [helper.make_tensor_value_info("y", F64, out)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="nnbound-testdata")
    onnx.checker.check_model(m)
    with open(os.path.join(OUT, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())
    return m


def good(name, desc, nodes, inits, in_shape, n=4, **kw):
    """A graph with batch axis "N" first: evaluated on n samples."""
    x = rng.uniform(-2, 2, size=[n] + in_shape[1:])
    y = evaluate(model(name, nodes, inits, in_shape, **kw), x)
    model(name, nodes, inits, in_shape, out_rank=y.ndim, **kw)
    y = y.reshape(n, -1)
    cases.append({"file": name + ".onnx", "desc": desc, "inputs": x.reshape(n, -1).tolist(),
                  "outputs": y.tolist()})


def bad(name, desc, err, nodes, inits, in_shape, **kw):
    model(name, nodes, inits, in_shape, **kw)
    cases.append({"file": name + ".onnx", "desc": desc, "error": err})


os.makedirs(OUT, exist_ok=True)

good("residual_sub", "h = relu(W1 x); y = (W2 h + h) - W3 h: a value read three times",
     [N("Gemm", ["x", "W1", "b1"], ["a"]), N("Relu", ["a"], ["h"]), N("Gemm", ["h", "W2", "b2"], ["g"]),
      N("Add", ["g", "h"], ["s"]), N("Gemm", ["h", "W3"], ["u"]), N("Sub", ["s", "u"], ["y"])],
     [t("W1", w(4, 5)), t("b1", w(5)), t("W2", w(5, 5)), t("b2", w(5)), t("W3", w(5, 5))], ["N", 4])

good("inception", "1x1 conv, 3x3 conv and 3x3 max pool branches concatenated along the channels",
     [N("Conv", ["x", "K1", "c1"], ["p"]), N("Conv", ["x", "K3"], ["q"], pads=[1, 1, 1, 1]),
      N("MaxPool", ["x"], ["r"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
      N("Concat", ["p", "q", "r"], ["c"], axis=1), N("Relu", ["c"], ["y"])],
     [t("K1", w(2, 2, 1, 1)), t("c1", w(2)), t("K3", w(3, 2, 3, 3))], ["N", 2, 5, 5])

good("concat_width", "two convolutions concatenated along the width (a selection after the join)",
     [N("Conv", ["x", "K1"], ["p"]), N("Conv", ["x", "K2"], ["q"], pads=[0, 1, 0, 0]),
      N("Concat", ["p", "q"], ["y"], axis=3)],
     [t("K1", w(2, 1, 2, 2)), t("K2", w(2, 1, 2, 3))], ["N", 1, 4, 4])

good("mobilenet_block", "depthwise conv, BN, relu6, pointwise conv, BN, residual add",
     [N("Conv", ["x", "D"], ["d"], group=3, pads=[1, 1, 1, 1]),
      N("BatchNormalization", ["d", "g1", "b1", "m1", "v1"], ["e"]), N("Clip", ["e", "lo", "hi"], ["f"]),
      N("Conv", ["f", "P"], ["p"]), N("BatchNormalization", ["p", "g2", "b2", "m2", "v2"], ["q"]),
      N("Add", ["q", "x"], ["y"])],
     [t("D", w(3, 1, 3, 3)), t("g1", w(3)), t("b1", w(3)), t("m1", w(3)), t("v1", rng.uniform(0.5, 2, 3)),
      t("lo", 0.0), t("hi", 6.0), t("P", w(3, 3, 1, 1)), t("g2", w(3)), t("b2", w(3)), t("m2", w(3)),
      t("v2", rng.uniform(0.5, 2, 3))], ["N", 3, 4, 4])

good("maxpool_ceil", "MaxPool 3x3 stride 2, pads, dilations, ceil_mode 1",
     [N("MaxPool", ["x"], ["p"], kernel_shape=[3, 2], strides=[2, 2], pads=[1, 0, 0, 1], dilations=[1, 2],
        ceil_mode=1), N("Flatten", ["p"], ["y"])], [], ["N", 2, 6, 7], opset=12)

good("avgpool_ceil", "AveragePool 3x3 stride 2, ceil_mode 1, count_include_pad 0",
     [N("AveragePool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 0, 0], ceil_mode=1)],
     [], ["N", 1, 6, 6])

good("transpose_gemm", "Transpose [N,2,3,4] to [N,3,4,2], Flatten, Gemm",
     [N("Transpose", ["x"], ["p"], perm=[0, 2, 3, 1]), N("Flatten", ["p"], ["f"]),
      N("Gemm", ["f", "W"], ["y"])], [t("W", w(24, 3))], ["N", 2, 3, 4])

for mode in ["constant", "reflect", "edge"]:
    extra = [t("cv", 0.5)] if mode == "constant" else []
    good("pad_" + mode, "Pad mode " + mode + " with pads from an input",
         [N("Pad", ["x", "pads"] + (["cv"] if extra else []), ["y"], mode=mode)],
         [it("pads", [0, 0, 1, 2, 0, 0, 2, 1])] + extra, ["N", 1, 3, 4])

good("prelu_channel", "Conv then PRelu with a slope per channel",
     [N("Conv", ["x", "K"], ["c"]), N("PRelu", ["c", "a"], ["y"])],
     [t("K", w(3, 1, 2, 2)), t("a", np.array([0.1, -0.5, 2.0]).reshape(3, 1, 1))], ["N", 1, 3, 3])

good("hardsigmoid", "HardSigmoid alpha 0.3 beta 0.4 after a Gemm",
     [N("Gemm", ["x", "W"], ["g"]), N("HardSigmoid", ["g"], ["y"], alpha=0.3, beta=0.4)],
     [t("W", w(3, 4, scale=2))], ["N", 3])

good("clip_vector", "Max then Min with vector bounds (one clipping with bounds per value)",
     [N("Max", ["x", "lo"], ["a"]), N("Min", ["a", "hi"], ["y"])],
     [t("lo", [-1.0, 0.0, -0.5, -1.0]), t("hi", [1.0, 0.5, 2.0, 1.0])], ["N", 4])

good("torch_flatten", "Shape, Gather, Unsqueeze, Concat, Reshape: the batch size kept symbolic",
     [N("Conv", ["x", "K"], ["c"]), N("Shape", ["c"], ["s"]), N("Gather", ["s", "zero"], ["n"], axis=0),
      N("Unsqueeze", ["n", "ax"], ["nu"]), N("Concat", ["nu", "minus1"], ["shp"], axis=0),
      N("Reshape", ["c", "shp"], ["f"]), N("Gemm", ["f", "W"], ["y"])],
     [t("K", w(2, 1, 2, 2)), it("zero", 0), it("ax", [0]), it("minus1", [-1]), t("W", w(18, 2))],
     ["N", 1, 4, 4])

good("dropout_unused", "Dropout (inference), Identity, and a branch the output does not read",
     [N("Gemm", ["x", "W"], ["g"]), N("Dropout", ["g"], ["d"]), N("Relu", ["g"], ["dead"]),
      N("Identity", ["d"], ["y"])], [t("W", w(3, 2))], ["N", 3])

good("clip_shared", "a Relu read by a Min and by an Add: the clippings stay apart",
     [N("Relu", ["x"], ["r"]), N("Min", ["r", "one"], ["a"]), N("Add", ["a", "r"], ["y"])], [t("one", 1.0)],
     ["N", 4])

good("elu_shared", "an Elu read by a LeakyRelu and by an Add: no Elu alpha merge",
     [N("Elu", ["x"], ["e"]), N("LeakyRelu", ["e"], ["l"], alpha=0.3), N("Add", ["l", "e"], ["y"])], [],
     ["N", 4])

good("slice", "Slice of a computed tensor: axes 2 and 3, a negative start, an end past the axis, steps 1 and 2",
     [N("Conv", ["x", "K"], ["c"], pads=[1, 1, 1, 1]), N("Slice", ["c", "st", "en", "ax", "sp"], ["y"])],
     [t("K", w(2, 1, 3, 3)), it("st", [1, -4]), it("en", [4, 100]), it("ax", [2, 3]), it("sp", [1, 2])],
     ["N", 1, 5, 5])
good("slice_reverse", "Slice with a negative step (reversing the width) and INT64 limits",
     [N("Slice", ["x", "st", "en", "ax", "sp"], ["y"])],
     [it("st", [-1]), it("en", [-2**63]), it("ax", [-1]), it("sp", [-1])], ["N", 2, 3])
good("slice_shape", "Shape, Slice of it, Concat with -1, Reshape: a flatten the exporters write",
     [N("Relu", ["x"], ["r"]), N("Shape", ["r"], ["s"]), N("Slice", ["s", "zero", "one"], ["n"]),
      N("Concat", ["n", "minus1"], ["shp"], axis=0), N("Reshape", ["r", "shp"], ["y"])],
     [it("zero", [0]), it("one", [1]), it("minus1", [-1])], ["N", 2, 3, 2])


def qdq(x, name, s, z, dtype, cast=False):
    """QuantizeLinear then (a Cast to the same type and) DequantizeLinear."""
    nodes = [N("QuantizeLinear", [x, name + "_s", name + "_z"], [name + "_q"])]
    q = name + "_q"
    if cast:
        nodes.append(N("Cast", [q], [name + "_c"], to={np.int8: TensorProto.INT8, np.uint8: TensorProto.UINT8}[dtype]))
        q = name + "_c"
    nodes.append(N("DequantizeLinear", [q, name + "_s", name + "_z"], [name]))
    return nodes, [t(name + "_s", np.float32(s)), it(name + "_z", z, dtype)]


n1, i1 = qdq("x", "xq", 0.02, 128, np.uint8)
n2, i2 = qdq("g", "gq", 0.05, -3, np.int8, cast=True)
n3, i3 = qdq("s", "y", 0.04, 0, np.int8)
Wq = rng.randint(-127, 128, size=(4, 4)).astype(np.int8)
Ws = rng.uniform(0.01, 0.03, 4).astype(np.float32)
good("qdq_residual", "int8 QDQ: quantised input, int8 weights per output channel, a quantised tensor "
     "read by a Relu branch and the skip, Casts between",
     n1 + [N("DequantizeLinear", ["Wq", "Ws", "Wz"], ["W"], axis=1), N("DequantizeLinear", ["bq", "bs"], ["b"], axis=0),
           N("Gemm", ["xq", "W", "b"], ["g"])] + n2 +
     [N("Relu", ["gq"], ["r"]), N("Add", ["r", "gq"], ["s"])] + n3,
     i1 + i2 + i3 + [it("Wq", Wq, np.int8), t("Ws", Ws), it("Wz", np.zeros(4), np.int8),
                     it("bq", rng.randint(-2000, 2000, 4), np.int32), t("bs", np.float32(0.02) * Ws)], ["N", 4])

n4, i4 = qdq("x", "xq", 0.02, 128, np.uint8)
bad("bad_qdq_params", "a DequantizeLinear with another scale than its QuantizeLinear", "ErrUnsupportedOp",
    [n4[0], N("DequantizeLinear", ["xq_q", "other", "xq_z"], ["y"])], i4 + [t("other", np.float32(0.03))], ["N", 4])
bad("bad_qdq_reader", "the integers of a QuantizeLinear read by a Relu", "ErrUnsupportedOp",
    [n4[0], N("Relu", ["xq_q"], ["y"])], i4, ["N", 4])
bad("bad_pow_data", "Pow of a computed tensor by 1.5 (only 1, 2, 3, 0.5 and -1 are read)", "ErrUnsupportedOp",
    [N("Relu", ["x"], ["a"]), N("Pow", ["a", "e"], ["y"])], [numpy_helper.from_array(np.array(1.5), "e")], ["N", 4])

with open(os.path.join(OUT, "cases.json"), "w") as f:
    json.dump({"note": "made by gen_dag.py; outputs evaluated in float64 numpy", "cases": cases}, f, indent=1)
