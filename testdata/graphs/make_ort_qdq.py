"""An ONNX Runtime-style QDQ model (the layout of onnxruntime.quantization.quantize_static,
QuantFormat.QDQ, per_channel=True, activations uint8 asymmetric MinMax, weights int8 symmetric per
output channel, biases int32 at scale s_in*s_w) made by hand with onnx.helper from a float model
(onnxruntime itself is not installable here).

Adapted from the team's shared networks/qdq/make_ort_qdq.py for graph models:
  - BatchNormalization after a Conv (the Conv's only reader) is folded into the Conv first, as
    onnxruntime's pre-processing does: w' = w * g / sqrt(v + eps), b' = (b - m) * g / sqrt(v + eps) + beta;
  - GlobalAveragePool passes through: its input is quantised (QuantizeLinear -> DequantizeLinear),
    the pooling runs in float, and its output is quantised where it is read by Gemm (after a
    Flatten, say), as onnxruntime's QDQ quantiser does;
  - the calibration run uses onnx_ref (any op it knows), the output keeps its name and shape.
Every float tensor feeding Conv, Gemm, Add or GlobalAveragePool, and the graph's output, gets
QuantizeLinear -> DequantizeLinear (uint8, scale (max(hi,0) - min(lo,0)) / 255, zero point
round(-min(lo,0) / scale), lo/hi over the calibration inputs); a tensor read by two such nodes (a
residual's skip) is quantised once. Relu nodes stay (onnxruntime drops a Relu after a quantised
node and quantises with the Relu's range; the values are the same). Weights become int8
initializers behind DequantizeLinear (axis 0 for Conv and for Gemm with transB=1), biases int32
initializers behind DequantizeLinear (axis 0). The graph output is the final DequantizeLinear's
output, renamed back to the float model's output name through an Identity.

Usage: make_ort_qdq.py FLOAT.onnx OUT.onnx CALIB.npy   (CALIB shaped like the model's input, batch
first), or make(model, calib) from Python.
"""
import sys
import numpy as np, onnx
from onnx import helper, numpy_helper

import onnx_ref


def fold_batchnorm(m):
    """A copy of m with each Conv -> BatchNormalization pair (the Conv's output read only by the BN)
    folded into one Conv with a bias."""
    g = m.graph
    init = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    for n in g.node:  # torch writes a parameter equal to another as Identity(initializer)
        if n.op_type == "Identity" and n.input[0] in init:
            init[n.output[0]] = init[n.input[0]]
    readers = {}
    for n in g.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    nodes, new_inits, drop, skip = [], {}, set(), set()
    for n in g.node:
        if id(n) in skip:
            continue
        if n.op_type == "Conv" and len(readers.get(n.output[0], [])) == 1 and readers[n.output[0]][0].op_type == "BatchNormalization":
            bn = readers[n.output[0]][0]
            eps = next((a.f for a in bn.attribute if a.name == "epsilon"), 1e-5)
            gam, beta, mean, var = (init[i].astype(np.float64) for i in bn.input[1:5])
            W = init[n.input[1]].astype(np.float64)
            b = init[n.input[2]].astype(np.float64) if len(n.input) > 2 and n.input[2] else np.zeros(W.shape[0])
            f = gam / np.sqrt(var + eps)
            wn, bname = n.input[1] + "_bnfold", n.name + "_bias_bnfold"
            new_inits[wn] = (W * f.reshape(-1, 1, 1, 1)).astype(np.float32)
            new_inits[bname] = ((b - mean) * f + beta).astype(np.float32)
            drop.update(list(n.input[1:]) + list(bn.input[1:5]))
            nodes.append(helper.make_node("Conv", [n.input[0], wn, bname], [bn.output[0]], name=n.name,
                                          **{a.name: helper.get_attribute_value(a) for a in n.attribute}))
            skip.add(id(bn))
        else:
            nodes.append(n)
    used = {i for n in nodes for i in n.input}
    nodes = [n for n in nodes if not (n.op_type == "Identity" and n.input[0] in init and n.output[0] not in used)]
    used = {i for n in nodes for i in n.input}
    inits = [i for i in g.initializer if i.name in used]
    inits += [numpy_helper.from_array(v, k) for k, v in new_inits.items()]
    graph = helper.make_graph(nodes, g.name, list(g.input), list(g.output), inits)
    mm = helper.make_model(graph, opset_imports=list(m.opset_import), producer_name=m.producer_name)
    mm.ir_version = m.ir_version
    return mm


def make(fm, X):
    """The QDQ model of float model fm, calibrated on the batch X."""
    m = fold_batchnorm(fm); g = m.graph
    env = onnx_ref.evaluate_all(m, X, np.float64)
    init = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    nodes, inits, qd = [], [], {}

    def qdq(t):
        if t in qd: return qd[t]
        v = env[t]; lo, hi = min(0.0, float(v.min())), max(0.0, float(v.max()))
        s = (hi - lo) / 255.0 or 1.0; zp = int(np.clip(round(-lo / s), 0, 255))
        sn, zn = t + "_scale", t + "_zp"
        inits.append(numpy_helper.from_array(np.array(s, np.float32), sn)); inits.append(numpy_helper.from_array(np.array(zp, np.uint8), zn))
        nodes.append(helper.make_node("QuantizeLinear", [t, sn, zn], [t + "_q"], name=t + "_QuantizeLinear"))
        nodes.append(helper.make_node("DequantizeLinear", [t + "_q", sn, zn], [t + "_dq"], name=t + "_DequantizeLinear"))
        qd[t] = (t + "_dq", s); return qd[t]

    weights = set()
    for n in g.node:
        if n.op_type in ("Conv", "Gemm"):
            xin, s_in = qdq(n.input[0])
            W = init[n.input[1]].astype(np.float64)
            axis = 0
            if n.op_type == "Gemm" and not any(a.name == "transB" and a.i == 1 for a in n.attribute):
                axis = 1
            red = tuple(i for i in range(W.ndim) if i != axis)
            sw = np.maximum(np.abs(W).max(axis=red), 1e-12) / 127.0
            shape = [1] * W.ndim; shape[axis] = -1
            Wq = np.clip(np.round(W / sw.reshape(shape)), -127, 127).astype(np.int8)
            wn = n.input[1]; weights.add(wn)
            inits += [numpy_helper.from_array(Wq, wn + "_quantized"), numpy_helper.from_array(sw.astype(np.float32), wn + "_scale"),
                      numpy_helper.from_array(np.zeros(len(sw), np.int8), wn + "_zp")]
            nodes.append(helper.make_node("DequantizeLinear", [wn + "_quantized", wn + "_scale", wn + "_zp"], [wn + "_dq"], axis=axis, name=wn + "_DequantizeLinear"))
            ins = [xin, wn + "_dq"]
            if len(n.input) > 2 and n.input[2]:
                bn = n.input[2]; weights.add(bn); b = init[bn].astype(np.float64); sb = (np.float32(s_in) * sw.astype(np.float32)).astype(np.float32)
                bq = np.round(b / sb.astype(np.float64)).astype(np.int32)
                inits += [numpy_helper.from_array(bq, bn + "_quantized"), numpy_helper.from_array(sb, bn + "_scale"),
                          numpy_helper.from_array(np.zeros(len(sb), np.int32), bn + "_zp")]
                nodes.append(helper.make_node("DequantizeLinear", [bn + "_quantized", bn + "_scale", bn + "_zp"], [bn + "_dq"], axis=0, name=bn + "_DequantizeLinear"))
                ins.append(bn + "_dq")
            nodes.append(helper.make_node(n.op_type, ins, list(n.output), name=n.name, **{a.name: helper.get_attribute_value(a) for a in n.attribute}))
        elif n.op_type == "Add":
            a0, _ = qdq(n.input[0]); a1, _ = qdq(n.input[1])
            nodes.append(helper.make_node("Add", [a0, a1], list(n.output), name=n.name))
        elif n.op_type == "GlobalAveragePool":
            a0, _ = qdq(n.input[0])
            nodes.append(helper.make_node("GlobalAveragePool", [a0], list(n.output), name=n.name))
        elif n.op_type in ("Relu", "Flatten", "Reshape", "Identity"):
            nodes.append(n)
        else:
            raise SystemExit("make_ort_qdq: op %s is not handled" % n.op_type)
    out = g.output[0]
    last, _ = qdq(out.name)
    # the graph output is the dequantised final tensor, under the float model's output name
    for n in nodes:
        for k, o in enumerate(n.output):
            if o == out.name:
                n.output[k] = out.name + "_float"
        for k, i in enumerate(n.input):
            if i == out.name:
                n.input[k] = out.name + "_float"
    nodes.append(helper.make_node("Identity", [last], [out.name], name="output_Identity"))
    keep = [i for i in g.initializer if i.name not in weights]
    graph = helper.make_graph(nodes, g.name + "_qdq", list(g.input), [out], keep + inits)
    mm = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="ort-style-qdq (hand-made)")
    mm.ir_version = 7
    onnx.checker.check_model(mm)
    return mm


def main(fin, fout, calib):
    onnx.save(make(onnx.load(fin), np.load(calib)), fout)


if __name__ == "__main__":
    main(*sys.argv[1:4])
