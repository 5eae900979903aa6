"""A small, independent numpy evaluator of ONNX graphs (the reference for testdata/graphs).

Walks the graph node by node and implements each operator from the ONNX operator documentation
(ai.onnx, opset 13; LayerNormalization of opset 17), in float64 or float32 arithmetic:

  evaluate(model, x, dtype=np.float64)        -> the graph's first output for the batch x
  evaluate_all(model, x, dtype=np.float64)    -> every tensor of the graph, by name

Float tensors (initializers, constants, the input) are converted to `dtype` before use, and every
float result stays in `dtype`: dtype=np.float32 computes as a float32 runtime does (ONNX Runtime),
dtype=np.float64 gives the exact-arithmetic reference up to float64 rounding. Integer tensors
(int8/uint8 quantised values, int32 biases, int64 shapes) keep their types.

Quantisation (ONNX docs):
  QuantizeLinear    y = saturate(round_half_to_even(x / scale) + zero_point)
                    x / scale in `dtype`; uint8 [0, 255] (the default when zero_point is absent),
                    int8 [-128, 127]; per axis (attribute axis, default 1) for a 1-D scale.
  DequantizeLinear  y = (x - zero_point) * scale, the difference taken in integers, per axis.

Nothing here is taken from onnx.reference, onnxruntime or torch; the only onnx use is reading
the protobuf (onnx.numpy_helper, onnx.helper.get_attribute_value).
"""
import numpy as np
from onnx import helper, numpy_helper

_ONNX_TYPES = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16, 6: np.int32, 7: np.int64,
               9: np.bool_, 10: np.float16, 11: np.float64, 12: np.uint32, 13: np.uint64}


def _floaty(a, dtype):
    a = np.asarray(a)
    return a.astype(dtype) if a.dtype.kind == "f" else a


def _attrs(n):
    return {a.name: helper.get_attribute_value(a) for a in n.attribute}


def _pads2(pads, nsp):
    """ONNX pads [x1_begin, x2_begin, ..., x1_end, x2_end] -> list of (begin, end) per spatial axis."""
    pads = list(pads) if pads is not None else [0] * (2 * nsp)
    return [(int(pads[i]), int(pads[i + nsp])) for i in range(nsp)]


def _auto_pads(auto_pad, in_sp, k_eff, strides):
    """Padding of auto_pad SAME_UPPER / SAME_LOWER / VALID (ONNX Conv and pool docs)."""
    out = []
    for i, s in enumerate(strides):
        if auto_pad == "VALID":
            out.append((0, 0)); continue
        o = -(-in_sp[i] // s)
        total = max(0, (o - 1) * s + k_eff[i] - in_sp[i])
        small, big = total // 2, total - total // 2
        out.append((small, big) if auto_pad == "SAME_UPPER" else (big, small))
    return out


def _windows(x, kernel, strides, dilations, pads, fill):
    """x [N,C,H,W] -> patches [N,C,kh,kw,OH,OW] of the padded input (floor output size)."""
    (pt, pb), (pl, pr) = pads
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=fill)
    H, W = xp.shape[2], xp.shape[3]
    kh, kw = kernel; sh, sw = strides; dh, dw = dilations
    oh = (H - (dh * (kh - 1) + 1)) // sh + 1
    ow = (W - (dw * (kw - 1) + 1)) // sw + 1
    if oh <= 0 or ow <= 0:
        raise ValueError("window larger than the padded input")
    p = np.empty(x.shape[:2] + (kh, kw, oh, ow), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            p[:, :, i, j] = xp[:, :, i * dh: i * dh + sh * (oh - 1) + 1: sh, j * dw: j * dw + sw * (ow - 1) + 1: sw]
    return p


def _spatial_setup(a, x_shape, kernel):
    strides = list(a.get("strides", [1, 1])); dil = list(a.get("dilations", [1, 1]))
    if len(kernel) != 2:
        raise NotImplementedError("only 2-D convolution and pooling")
    auto_pad = a.get("auto_pad", b"NOTSET")
    auto_pad = auto_pad.decode() if isinstance(auto_pad, bytes) else auto_pad
    if auto_pad in ("NOTSET", ""):
        pads = _pads2(a.get("pads"), 2)
    else:
        k_eff = [dil[i] * (kernel[i] - 1) + 1 for i in range(2)]
        pads = _auto_pads(auto_pad, x_shape[2:], k_eff, strides)
    if a.get("ceil_mode", 0):
        raise NotImplementedError("ceil_mode=1")
    return strides, dil, pads


def conv(a, x, w, b, dtype):
    """ONNX Conv: y[n,o] = sum_{c in group(o), i, j} x_pad[n, c, oh*s + i*d, ow*s + j*d] w[o, c, i, j] + b[o]."""
    g = int(a.get("group", 1))
    O, Cg, kh, kw = w.shape
    strides, dil, pads = _spatial_setup(a, x.shape, [kh, kw])
    p = _windows(x, (kh, kw), strides, dil, pads, 0)  # N,C,kh,kw,OH,OW
    N, C = x.shape[:2]
    if C != Cg * g or O % g:
        raise ValueError("Conv: channels %d, weight %s, group %d" % (C, w.shape, g))
    Og = O // g
    outs = []
    for gi in range(g):
        pg = p[:, gi * Cg:(gi + 1) * Cg]                               # N,Cg,kh,kw,OH,OW
        wg = w[gi * Og:(gi + 1) * Og]                                   # Og,Cg,kh,kw
        cols = pg.reshape(N, Cg * kh * kw, -1)                          # N,K,OH*OW
        outs.append(np.matmul(wg.reshape(Og, -1), cols))                # N,Og,OH*OW
    y = np.concatenate(outs, 1).reshape(N, O, p.shape[4], p.shape[5]).astype(dtype)
    if b is not None:
        y = y + b.reshape(1, -1, 1, 1)
    return y


def max_pool(a, x):
    kernel = list(a["kernel_shape"])
    strides, dil, pads = _spatial_setup(a, x.shape, kernel)
    p = _windows(x, kernel, strides, dil, pads, -np.inf)
    return p.max(axis=(2, 3))


def average_pool(a, x, dtype):
    kernel = list(a["kernel_shape"])
    if "dilations" in a and list(a["dilations"]) != [1, 1]:
        raise NotImplementedError("AveragePool dilations")
    strides, dil, pads = _spatial_setup(a, x.shape, kernel)
    s = _windows(x, kernel, strides, dil, pads, 0).sum(axis=(2, 3))
    if a.get("count_include_pad", 0):
        return (s / dtype(kernel[0] * kernel[1])).astype(dtype)
    ones = np.ones((1, 1) + x.shape[2:], dtype)
    cnt = _windows(ones, kernel, strides, dil, pads, 0).sum(axis=(2, 3))
    return (s / cnt).astype(dtype)


def _pad(x, pads, value, mode):
    r = x.ndim
    pw = [(int(pads[i]), int(pads[i + r])) for i in range(r)]
    if any(b < 0 or e < 0 for b, e in pw):
        raise NotImplementedError("negative pads")
    if mode == "constant":
        return np.pad(x, pw, mode="constant", constant_values=value)
    return np.pad(x, pw, mode={"reflect": "reflect", "edge": "edge"}[mode])


def _quantize(x, scale, zp, axis, dtype):
    x = x.astype(dtype); scale = np.asarray(scale).astype(dtype)
    zp = np.zeros((), np.uint8) if zp is None else np.asarray(zp)
    if scale.ndim == 1 and scale.size > 1:
        shape = [1] * x.ndim; shape[axis] = -1
        scale = scale.reshape(shape); zp = zp.reshape(shape)
    info = np.iinfo(zp.dtype)
    q = np.round(x / scale)                          # numpy rounds half to even; x/scale in dtype
    return np.clip(q + zp.astype(dtype), info.min, info.max).astype(zp.dtype)


def _dequantize(x, scale, zp, axis, dtype):
    scale = np.asarray(scale).astype(dtype)
    zp = np.zeros((), x.dtype) if zp is None else np.asarray(zp)
    if scale.ndim == 1 and scale.size > 1:
        shape = [1] * x.ndim; shape[axis] = -1
        scale = scale.reshape(shape); zp = zp.reshape(shape)
    return (x.astype(np.int64) - zp.astype(np.int64)).astype(dtype) * scale


def _constant(a, dtype):
    if "value" in a:
        return _floaty(numpy_helper.to_array(a["value"]), dtype)
    if "value_float" in a:
        return np.array(a["value_float"], dtype)
    if "value_floats" in a:
        return np.array(a["value_floats"], dtype)
    if "value_int" in a:
        return np.array(a["value_int"], np.int64)
    if "value_ints" in a:
        return np.array(a["value_ints"], np.int64)
    raise NotImplementedError("Constant attribute %s" % list(a))


def run_node(n, v, dtype):
    """The outputs (a list) of node n on the input values v (None for an absent optional input)."""
    a = _attrs(n); op = n.op_type
    x = v[0] if v else None
    if op == "Constant":
        return [_constant(a, dtype)]
    if op == "ConstantOfShape":
        val = numpy_helper.to_array(a["value"]) if "value" in a else np.zeros(1, np.float32)
        return [_floaty(np.full(tuple(int(d) for d in x), val.ravel()[0], dtype=val.dtype), dtype)]
    if op == "Identity":
        return [x]
    if op == "Dropout":
        # opset 13: inputs data, ratio (optional), training_mode (optional, default false)
        if len(v) > 2 and v[2] is not None and bool(np.asarray(v[2])):
            raise NotImplementedError("Dropout in training mode")
        return [x, np.ones(x.shape, np.bool_)][:len(n.output)]
    if op == "Cast":
        to = _ONNX_TYPES[a["to"]]
        if np.dtype(to).kind == "f":
            return [x.astype(dtype)]                 # float casts keep the working precision
        if x.dtype.kind == "f":
            x = np.trunc(x)
        return [x.astype(to)]
    if op == "QuantizeLinear":
        return [_quantize(x, v[1], v[2] if len(v) > 2 else None, a.get("axis", 1), dtype)]
    if op == "DequantizeLinear":
        return [_dequantize(x, v[1], v[2] if len(v) > 2 else None, a.get("axis", 1), dtype)]
    if op in ("Add", "Sub", "Mul", "Div"):
        y = v[1]
        if op == "Div" and x.dtype.kind in "iu":
            return [(np.trunc(x / y)).astype(x.dtype)]
        f = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide}[op]
        r = f(x, y)
        return [r.astype(dtype) if r.dtype.kind == "f" else r]
    if op == "Relu":
        return [np.maximum(x, dtype(0))]
    if op == "LeakyRelu":
        al = dtype(a.get("alpha", 0.01))
        return [np.where(x >= 0, x, al * x).astype(dtype)]
    if op == "PRelu":
        return [np.where(x >= 0, x, v[1] * x).astype(dtype)]
    if op == "Sigmoid":
        return [(dtype(1) / (dtype(1) + np.exp(-x))).astype(dtype)]
    if op == "Tanh":
        return [np.tanh(x)]
    if op == "HardSigmoid":
        al, be = dtype(a.get("alpha", 0.2)), dtype(a.get("beta", 0.5))
        return [np.clip(al * x + be, dtype(0), dtype(1)).astype(dtype)]
    if op == "Clip":
        lo = v[1] if len(v) > 1 and v[1] is not None else None
        hi = v[2] if len(v) > 2 and v[2] is not None else None
        y = x
        if lo is not None:
            y = np.maximum(y, lo)
        if hi is not None:
            y = np.minimum(y, hi)
        return [y.astype(x.dtype)]
    if op == "Conv":
        return [conv(a, x, v[1], v[2] if len(v) > 2 else None, dtype)]
    if op == "BatchNormalization":
        sc, bi, mean, var = (t.reshape(1, -1, *([1] * (x.ndim - 2))) for t in v[1:5])
        eps = dtype(a.get("epsilon", 1e-5))
        return [((x - mean) / np.sqrt(var + eps) * sc + bi).astype(dtype)]
    if op == "MaxPool":
        if len(n.output) > 1:
            raise NotImplementedError("MaxPool indices")
        return [max_pool(a, x)]
    if op == "AveragePool":
        return [average_pool(a, x, dtype)]
    if op == "GlobalAveragePool":
        return [x.mean(axis=tuple(range(2, x.ndim)), keepdims=True).astype(dtype)]
    if op == "Gemm":
        A, B = v[0], v[1]
        if a.get("transA", 0): A = A.T
        if a.get("transB", 0): B = B.T
        y = dtype(a.get("alpha", 1.0)) * np.matmul(A, B)
        if len(v) > 2 and v[2] is not None:
            y = y + dtype(a.get("beta", 1.0)) * v[2]
        return [y.astype(dtype)]
    if op == "MatMul":
        return [np.matmul(x, v[1])]
    if op == "Flatten":
        ax = a.get("axis", 1); ax = ax + x.ndim if ax < 0 else ax
        return [x.reshape(int(np.prod(x.shape[:ax], dtype=np.int64)), -1)]
    if op == "Reshape":
        shape = [int(s) for s in v[1]]
        if not a.get("allowzero", 0):
            shape = [x.shape[i] if s == 0 else s for i, s in enumerate(shape)]
        return [x.reshape(shape)]
    if op == "Transpose":
        perm = a.get("perm", list(range(x.ndim))[::-1])
        return [np.transpose(x, perm)]
    if op == "Squeeze":
        axes = v[1] if len(v) > 1 and v[1] is not None else a.get("axes")
        if axes is None:
            return [np.squeeze(x)]
        axes = tuple(int(i) + x.ndim if i < 0 else int(i) for i in np.asarray(axes).ravel())
        if any(x.shape[i] != 1 for i in axes):
            raise ValueError("Squeeze of an axis of size > 1")
        return [np.squeeze(x, axis=axes)]
    if op == "Unsqueeze":
        axes = v[1] if len(v) > 1 and v[1] is not None else a["axes"]
        r = x.ndim + np.asarray(axes).size
        axes = sorted(int(i) + r if i < 0 else int(i) for i in np.asarray(axes).ravel())
        y = x
        for i in axes:
            y = np.expand_dims(y, i)
        return [y]
    if op == "Concat":
        return [np.concatenate([t for t in v if t is not None], axis=a["axis"])]
    if op == "Pad":
        mode = a.get("mode", b"constant"); mode = mode.decode() if isinstance(mode, bytes) else mode
        value = v[2] if len(v) > 2 and v[2] is not None else np.zeros((), x.dtype)
        return [_pad(x, v[1], np.asarray(value).ravel()[0] if np.asarray(value).size else 0, mode).astype(x.dtype)]
    if op == "Shape":
        return [np.array(x.shape, np.int64)]
    if op == "Gather":
        return [np.take(x, v[1], axis=a.get("axis", 0))]
    if op == "Slice":
        starts, ends = np.asarray(v[1]).ravel(), np.asarray(v[2]).ravel()
        axes = np.asarray(v[3]).ravel() if len(v) > 3 and v[3] is not None else np.arange(len(starts))
        steps = np.asarray(v[4]).ravel() if len(v) > 4 and v[4] is not None else np.ones(len(starts), np.int64)
        sl = [slice(None)] * x.ndim
        for s, e, ax, st in zip(starts, ends, axes, steps):
            ax = int(ax) + x.ndim if ax < 0 else int(ax); d = x.shape[ax]; s, e, st = int(s), int(e), int(st)
            # ONNX: negative starts/ends count from the end, then clamp ([0, d] for step > 0, [-1, d-1] for step < 0)
            s = s + d if s < 0 else s; e = e + d if e < 0 else e
            if st > 0:
                s, e = min(max(s, 0), d), min(max(e, 0), d)
            else:
                s, e = min(max(s, -1), d - 1), min(max(e, -1), d - 1)
            sl[ax] = slice(s, e if e >= 0 else None, st)
        return [x[tuple(sl)]]
    r = _transformer_op(op, n, a, v, dtype)
    if r is not None:
        return r
    raise NotImplementedError("operator %s" % op)


def _axes(x, axes):
    return tuple(sorted(int(i) + x.ndim if i < 0 else int(i) for i in np.asarray(axes).ravel()))


def _erf(x):
    """erf from math.erf element by element (float64), rounded to the working type."""
    import math
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _transformer_op(op, n, a, v, dtype):
    """The operators of small transformers (ONNX docs, opsets 13 and 17), or None for another op."""
    x = v[0] if v else None
    if op == "ReduceMean":
        axes = a.get("axes")                       # opset 13: an attribute; all axes when absent
        axes = tuple(range(x.ndim)) if axes is None else _axes(x, axes)
        keep = bool(a.get("keepdims", 1))
        return [(np.sum(x, axis=axes, keepdims=keep) / dtype(np.prod([x.shape[i] for i in axes]))).astype(dtype)]
    if op == "Pow":
        e = np.asarray(v[1])
        if e.size == 1 and float(e.ravel()[0]) == 2.0:
            return [(x * x).astype(dtype)]
        if e.size == 1 and float(e.ravel()[0]) == 3.0:
            return [(x * x * x).astype(dtype)]
        return [np.power(x, e.astype(dtype)).astype(dtype)]
    if op == "Sqrt":
        return [np.sqrt(x)]
    if op == "Exp":
        return [np.exp(x)]
    if op == "Neg":
        return [-x]
    if op == "Reciprocal":
        return [(dtype(1) / x).astype(dtype)]
    if op == "Erf":
        return [_erf(x).astype(dtype)]
    if op == "Softmax":
        ax = a.get("axis", -1)                     # opset 13: along one axis
        e = np.exp(x - np.max(x, axis=ax, keepdims=True))
        return [(e / np.sum(e, axis=ax, keepdims=True)).astype(dtype)]
    if op == "Split":
        ax = a.get("axis", 0); ax = ax + x.ndim if ax < 0 else ax
        parts = v[1] if len(v) > 1 and v[1] is not None else a.get("split")
        if parts is None:
            parts = [x.shape[ax] // len(n.output)] * len(n.output)
        cuts = np.cumsum([int(p) for p in np.asarray(parts).ravel()])[:-1]
        return list(np.split(x, cuts, axis=ax))
    if op == "LayerNormalization":
        ax = a.get("axis", -1); ax = ax + x.ndim if ax < 0 else ax
        axes = tuple(range(ax, x.ndim)); eps = dtype(a.get("epsilon", 1e-5))
        mu = np.mean(x, axis=axes, keepdims=True)
        var = np.mean((x - mu) ** 2, axis=axes, keepdims=True)
        y = (x - mu) / np.sqrt(var + eps) * v[1]
        if len(v) > 2 and v[2] is not None:
            y = y + v[2]
        return [y.astype(dtype)]
    return None


def evaluate_all(model, x, dtype=np.float64):
    """Every tensor of model's graph on input x (batch first), computed in dtype."""
    g = model.graph
    env = {t.name: _floaty(numpy_helper.to_array(t), dtype) for t in g.initializer}
    inits = set(env)
    inputs = [i.name for i in g.input if i.name not in inits]
    if len(inputs) != 1:
        raise ValueError("want one data input, got %s" % inputs)
    env[inputs[0]] = np.asarray(x).astype(dtype)
    for n in g.node:
        v = [env[i] if i else None for i in n.input]
        outs = run_node(n, v, dtype)
        for name, val in zip(n.output, outs):
            if name:
                env[name] = val
    return env


def evaluate(model, x, dtype=np.float64):
    """The graph's first output on input x, computed in dtype."""
    return evaluate_all(model, x, dtype)[model.graph.output[0].name]
