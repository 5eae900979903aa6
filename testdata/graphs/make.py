#!/usr/bin/python3
"""Computation-graph test models for nnbound (residual, concat, pooling, int8 QDQ graphs) and
their reference outputs. See README.md in this folder for what each file holds.

Run from the repository root: /usr/bin/python3 testdata/graphs/make.py
Needs Debian's python3-numpy, python3-onnx (1.12), python3-torch (1.13, CPU; its oneDNN int8
engine) and python3-sklearn (the bundled digits). Deterministic: fixed seeds, one thread,
torch.use_deterministic_algorithms(True); about a minute on one core.

The reference outputs come from onnx_ref.py (this folder), an independent numpy evaluator of the
ONNX operator semantics, in float64 (and float32 for the QDQ models); torch's own outputs are
recorded next to them and checked against them.
"""
import copy
import json
import os
import sys
import time

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.ao.quantization as tq
from onnx import helper, numpy_helper
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import onnx_ref  # noqa: E402
import make_ort_qdq  # noqa: E402
from digits_train import train_digits  # noqa: E402
from resnet import ResNet, export, export_bn  # noqa: E402

torch.set_num_threads(1)
torch.use_deterministic_algorithms(True)
torch.backends.quantized.engine = "onednn"
T0 = time.time()
CROSS_TOL = 1e-5       # max |onnx_ref float32 - torch float32| allowed on the float models
SUMMARY = {}


def log(*a):
    print("[%5.1fs]" % (time.time() - T0), *a, flush=True)


# ---------------------------------------------------------------------------------------------
# data: scikit-learn's digits, the team's split (train_test_split(test_size=0.25, random_state=0,
# stratify=y)); 1347 training and 450 test images, pixels/16 in [0, 1], shaped [N, 1, 8, 8]
dg = load_digits()
_X = (dg.data / 16.0).astype(np.float32)
Xtr, Xte, ytr, yte = train_test_split(_X, dg.target, test_size=0.25, random_state=0, stratify=dg.target)
Xtr = Xtr.reshape(-1, 1, 8, 8); Xte = Xte.reshape(-1, 1, 8, 8)
DIGITS_NOTE = ("the first 10 images of the digits test split (digits_test.json, the same 450 images as the "
               "team's shared digits test set); each input is the 1x8x8 image flattened in NCHW order, "
               "pixels/16 in [0, 1]; the outputs do not depend on any other test input")


# ---------------------------------------------------------------------------------------------
# helpers

def ref(m, X, dtype=np.float64, per_sample=False):
    """onnx_ref outputs for the batch X, flattened to [N, -1] (per_sample: one input at a time)."""
    if per_sample:
        return np.concatenate([ref(m, X[i:i + 1], dtype) for i in range(len(X))])
    y = onnx_ref.evaluate(m, X, dtype)
    return np.asarray(y).reshape(len(X), -1)


def torch_out(model, X, dtype=torch.float32, per_sample=False):
    if per_sample:
        return np.concatenate([torch_out(model, X[i:i + 1], dtype) for i in range(len(X))])
    with torch.no_grad():
        return model(torch.from_numpy(np.asarray(X)).to(dtype)).numpy().reshape(len(X), -1).astype(np.float64)


def op_list(m):
    return [n.op_type for n in m.graph.node]


def tensor_shape(vi):
    return [d.dim_value if d.HasField("dim_value") else d.dim_param for d in vi.type.tensor_type.shape.dim]


def const_value(m, name):
    for i in m.graph.initializer:
        if i.name == name:
            return numpy_helper.to_array(i)
    for n in m.graph.node:
        if name in n.output:
            if n.op_type == "Constant":
                return numpy_helper.to_array(n.attribute[0].t)
            env = onnx_ref.evaluate_all(m, np.zeros([d for d in tensor_shape(m.graph.input[0])], np.float32))
            return env[name]
    raise KeyError(name)


def output_quantiser(m):
    """(scale, zero point) of the DequantizeLinear that gives the graph's output."""
    prod = {o: n for n in m.graph.node for o in n.output}
    n = prod[m.graph.output[0].name]
    while n.op_type == "Identity":
        n = prod[n.input[0]]
    assert n.op_type == "DequantizeLinear", n.op_type
    return float(const_value(m, n.input[1])), int(const_value(m, n.input[2]))


def levels(y, scale, zp):
    """The integers k with y = (k - zp) * scale (checked to be exact up to rounding)."""
    k = np.round(np.asarray(y) / scale) + zp
    assert np.abs((k - zp) * scale - y).max() <= 1e-6 * max(1.0, np.abs(y).max()), "not on the grid"
    return k.astype(int)


def fl(a):
    return np.asarray(a, np.float64).tolist()


def write_json(name, rec):
    """One key per line, arrays compact; floats in repr form (they read back exactly)."""
    path = os.path.join(HERE, name + ".json")
    with open(path, "w") as fh:
        fh.write("{\n" + ",\n".join(" %s: %s" % (json.dumps(k), json.dumps(v)) for k, v in rec.items()) + "\n}\n")
    log("wrote %s.json (%d bytes)" % (name, os.path.getsize(path)))


def base_record(name, m, inputs, note, desc):
    return {
        "model": name + ".onnx", "description": desc,
        "producer": ("%s %s" % (m.producer_name, m.producer_version)).strip(), "opset": m.opset_import[0].version,
        "ops": sorted(set(op_list(m))), "node_count": len(m.graph.node),
        "input_name": m.graph.input[0].name, "input_shape": tensor_shape(m.graph.input[0]),
        "output_name": m.graph.output[0].name, "output_shape": tensor_shape(m.graph.output[0]),
        "inputs_note": note, "inputs": fl(inputs.reshape(len(inputs), -1)),
    }


def float_model_record(name, model, m, inputs, note, desc, check_X, per_sample=False):
    """Record of a float model: onnx_ref float64 outputs, torch's float32 / float64 outputs, and the
    cross-check of onnx_ref (float32 arithmetic) against torch's float32 forward on check_X."""
    rec = base_record(name, m, inputs, note, desc)
    y64 = ref(m, inputs, np.float64, per_sample)
    m64 = copy.deepcopy(model).double()
    yt32 = torch_out(model, inputs, per_sample=per_sample)
    yt64 = torch_out(m64, inputs, torch.float64, per_sample)
    c32 = ref(m, check_X, np.float32, per_sample); ct32 = torch_out(model, check_X, per_sample=per_sample)
    c64 = ref(m, check_X, np.float64, per_sample); ct64 = torch_out(m64, check_X, torch.float64, per_sample)
    d32 = float(np.abs(c32 - ct32).max()); d64 = float(np.abs(c64 - ct64).max())
    assert d32 < CROSS_TOL, "%s: onnx_ref float32 vs torch float32 differ by %g" % (name, d32)
    # float64: the ONNX file stores attributes in float32 (LeakyRelu alpha 0.1, HardSigmoid alpha 1/6), torch's
    # float64 model uses the exact constants, so the two differ by ~1e-9 on misc_ops and ~1e-15 elsewhere
    assert d64 < 1e-6, "%s: onnx_ref float64 vs torch float64 differ by %g" % (name, d64)
    rec.update({
        "outputs_float64": fl(y64),
        "outputs_torch_float32": fl(yt32),
        "max_abs_onnx_ref_float64_vs_torch_float64": float(np.abs(y64 - yt64).max()),
        "crosscheck": {"inputs": len(check_X),
                       "max_abs_onnx_ref_float32_vs_torch_float32": d32,
                       "max_abs_onnx_ref_float64_vs_torch_float64": d64,
                       "max_abs_output": float(np.abs(ct32).max())},
    })
    SUMMARY[name] = {"crosscheck_f32": d32, "crosscheck_f64": d64, "n": len(check_X)}
    log("%s: onnx_ref vs torch on %d inputs: float32 %.3g, float64 %.3g (max |y| %.3g)"
        % (name, len(check_X), d32, d64, np.abs(ct32).max()))
    return rec


def qdq_outputs(rec, m, inputs, per_sample=False):
    y64 = ref(m, inputs, np.float64, per_sample); y32 = ref(m, inputs, np.float32, per_sample)
    s, z = output_quantiser(m)
    rec.update({"output_scale": s, "output_zero_point": z,
                "outputs_float64": fl(y64), "outputs_float32": fl(y32),
                "output_levels_float64": levels(y64, s, z).tolist(), "output_levels_float32": levels(y32, s, z).tolist(),
                "max_abs_float32_vs_float64": float(np.abs(y32 - y64).max())})
    return y64, y32


def save(m, name):
    path = os.path.join(HERE, name + ".onnx")
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, path)
    log("wrote %s.onnx (%d bytes, %d nodes)" % (name, os.path.getsize(path), len(m.graph.node)))



def accuracy(y, labels=None):
    return float((np.asarray(y).argmax(1) == (yte if labels is None else labels)).mean())


def torch_int8(model, fuse, calib):
    """Eager post-training static quantisation (oneDNN default qconfig: uint8 activations with
    HistogramObserver, int8 per-channel symmetric weights), calibrated on calib."""
    q = copy.deepcopy(model).eval()
    q = tq.fuse_modules(q, fuse)
    q.qconfig = tq.get_default_qconfig("onednn")
    tq.prepare(q, inplace=True)
    with torch.no_grad():
        q(torch.from_numpy(calib))
    tq.convert(q, inplace=True)
    return q


def int8_record(name, m, inputs, note, desc, q=None, X_acc=None):
    """Record of a QDQ model; with q (a torch int8 model) also torch's int8 kernel outputs."""
    rec = base_record(name, m, inputs, note, desc)
    y64, y32 = qdq_outputs(rec, m, inputs)
    s, z = rec["output_scale"], rec["output_zero_point"]
    if q is not None:
        yq = torch_out(q, inputs)
        rec["outputs_torch_int8"] = fl(yq)
        rec["output_levels_torch_int8"] = levels(yq, s, z).tolist()
        rec["max_abs_torch_int8_vs_float32"] = float(np.abs(yq - y32).max())
    if X_acc is not None:
        a64 = ref(m, X_acc, np.float64); a32 = ref(m, X_acc, np.float32)
        rec["test_accuracy_float64"] = accuracy(a64); rec["test_accuracy_float32"] = accuracy(a32)
        st = {"acc64": rec["test_accuracy_float64"], "acc32": rec["test_accuracy_float32"]}
        d = np.abs(levels(a64, s, z) - levels(a32, s, z))
        rec["test_set_levels_float32_vs_float64"] = {"max_steps": int(d.max()), "outputs_differing": int((d > 0).sum()),
                                                      "outputs": int(d.size)}
        if q is not None:
            aq = torch_out(q, X_acc)
            rec["test_accuracy_torch_int8"] = accuracy(aq)
            dq = np.abs(levels(aq, s, z) - levels(a32, s, z))
            rec["test_set_levels_torch_int8_vs_float32"] = {"max_steps": int(dq.max()), "outputs_differing": int((dq > 0).sum()),
                                                             "outputs": int(dq.size)}
            st["acc_torch"] = rec["test_accuracy_torch_int8"]; st["torch_vs_f32"] = rec["test_set_levels_torch_int8_vs_float32"]
        st["f32_vs_f64"] = rec["test_set_levels_float32_vs_float64"]
        SUMMARY[name] = st
        log(name, st)
    return rec


# ---------------------------------------------------------------------------------------------
# 0. the digits test set
with open(os.path.join(HERE, "digits_test.json"), "w") as fh:
    fh.write("{\n" + ",\n".join(" %s: %s" % (json.dumps(k), json.dumps(v)) for k, v in {
        "source": "scikit-learn's bundled digits (UCI optical recognition of handwritten digits), pixels/16 in [0, 1]",
        "split": "train_test_split(X, y, test_size=0.25, random_state=0, stratify=y), the test part (450 images); "
                 "the training part (1347 images) trains and calibrates the digits models",
        "input_shape": [1, 1, 8, 8],
        "inputs": fl(Xte.reshape(len(Xte), -1)), "labels": yte.tolist()}.items()) + "\n}\n")
log("wrote digits_test.json")

# 1. digits_rescnn: float residual CNN with BatchNormalization nodes
torch.manual_seed(4)
rescnn = train_digits(ResNet(1, 6, [(6, 1), (12, 2)]), Xtr, ytr, epochs=40, seed=4, shift=True)
ex = torch.from_numpy(Xte[:1])
m = export_bn(rescnn, ex, os.path.join(HERE, "digits_rescnn.onnx"))
assert "BatchNormalization" in op_list(m) and "GlobalAveragePool" in op_list(m)
rec = float_model_record(
    "digits_rescnn", rescnn, m, Xte[:10], DIGITS_NOTE,
    "residual CNN on 1x8x8 digits: stem Conv 3x3 1->6 pad 1 -> BN -> ReLU; block 1 (6 channels, 8x8): "
    "Conv-BN-ReLU-Conv-BN + identity skip, ReLU; block 2 (12 channels, 4x4): Conv 3x3 stride 2 -> BN -> ReLU -> "
    "Conv-BN, skip = Conv 1x1 stride 2 -> BN, Add, ReLU; GlobalAveragePool; Flatten; Linear 12->10 (logits). "
    "BatchNormalization nodes kept (not folded).", Xte)
y = ref(m, Xte); rec["test_accuracy"] = accuracy(y); rec["test_accuracy_torch"] = accuracy(torch_out(rescnn, Xte))
rec["labels"] = yte[:10].tolist()
rec["training"] = "digits training split (1347), 40 epochs Adam + one-cycle lr 1e-2, batch 64, random 1-pixel shifts, seed 4"
SUMMARY["digits_rescnn"]["acc"] = rec["test_accuracy"]
log("digits_rescnn: test accuracy %.4f (torch %.4f)" % (rec["test_accuracy"], rec["test_accuracy_torch"]))
write_json("digits_rescnn", rec)
rescnn_onnx = m

# 2. digits_rescnn_int8_ort: the ONNX Runtime QDQ layout of (1), calibrated on the training images
mq = make_ort_qdq.make(rescnn_onnx, Xtr)
save(mq, "digits_rescnn_int8_ort")
rec = int8_record("digits_rescnn_int8_ort", mq, Xte[:10], DIGITS_NOTE,
                  "ONNX Runtime QDQ layout (quantize_static, QuantFormat.QDQ, per_channel=True) of digits_rescnn, "
                  "made by make_ort_qdq.py: BN folded into the Convs, int8 symmetric per-channel weights, int32 "
                  "biases, uint8 asymmetric MinMax activations calibrated on the 1347 training images.",
                  X_acc=Xte)
rec["labels"] = yte[:10].tolist()
write_json("digits_rescnn_int8_ort", rec)

# 2b. digits_resid (identity skip only, no pooling) and its ORT QDQ layout: a residual graph that nnbound's
# current reader takes (it reads residual blocks with identity skips), to test the QDQ semantics inside a branch
torch.manual_seed(3)
resid = train_digits(ResNet(1, 6, [(6, 1)], flat_hw=64), Xtr, ytr, epochs=40, seed=3, shift=True)
m = export_bn(resid, ex, os.path.join(HERE, "digits_resid.onnx"))
rec = float_model_record(
    "digits_resid", resid, m, Xte[:10], DIGITS_NOTE,
    "residual CNN with one identity-skip block and no pooling: stem Conv 3x3 1->6 pad 1 -> BN -> ReLU; block "
    "(6 channels, 8x8): Conv-BN-ReLU-Conv-BN + identity skip, Add, ReLU; Flatten (384); Linear 384->10. "
    "BatchNormalization nodes kept.", Xte)
rec["test_accuracy"] = accuracy(ref(m, Xte)); rec["test_accuracy_torch"] = accuracy(torch_out(resid, Xte))
rec["labels"] = yte[:10].tolist()
rec["training"] = "digits training split (1347), 40 epochs Adam + one-cycle lr 1e-2, batch 64, random 1-pixel shifts, seed 3"
SUMMARY["digits_resid"]["acc"] = rec["test_accuracy"]
log("digits_resid: test accuracy %.4f" % rec["test_accuracy"])
write_json("digits_resid", rec)
mq = make_ort_qdq.make(m, Xtr)
save(mq, "digits_resid_int8_ort")
rec = int8_record("digits_resid_int8_ort", mq, Xte[:10], DIGITS_NOTE,
                  "ONNX Runtime QDQ layout of digits_resid made by make_ort_qdq.py (BN folded, int8 per-channel "
                  "weights, int32 biases, uint8 MinMax activations calibrated on the 1347 training images). Inside "
                  "the residual branch sit two activation quantisers: on the branch's inner ReLU output and on its "
                  "last Conv output, before the Add.", X_acc=Xte)
rec["labels"] = yte[:10].tolist()
write_json("digits_resid_int8_ort", rec)

# 3. digits_rescnn_int8_torch: torch eager int8 of the same residual CNN
qres = torch_int8(rescnn, rescnn.fuse_list(), Xtr)
mq = export(qres, ex, os.path.join(HERE, "digits_rescnn_int8_torch.onnx"))
log("wrote digits_rescnn_int8_torch.onnx (%d nodes)" % len(mq.graph.node))
rec = int8_record("digits_rescnn_int8_torch", mq, Xte[:10], DIGITS_NOTE,
                  "PyTorch 1.13 eager post-training static quantisation (oneDNN engine and default qconfig) of "
                  "digits_rescnn's weights: QuantStub, Conv+BN(+ReLU) fused, FloatFunctional.add for the skips, "
                  "quantised ReLU, adaptive average pool, Linear, DeQuantStub; calibrated on the 1347 training "
                  "images; exported by torch.onnx.export (QuantizeLinear -> Cast -> DequantizeLinear chains, "
                  "Constant weights; the tensor after block 1 is read by two Casts).", q=qres, X_acc=Xte)
rec["labels"] = yte[:10].tolist()
write_json("digits_rescnn_int8_torch", rec)


# 4. digits_cnn_int8_torch: a plain CNN, Q/DQ around Flatten
class PlainCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
        self.c1 = nn.Conv2d(1, 8, 3, 1, 1); self.r1 = nn.ReLU()
        self.c2 = nn.Conv2d(8, 16, 3, 2, 1); self.r2 = nn.ReLU()
        self.fc = nn.Linear(256, 10)

    def forward(self, x):
        h = self.r2(self.c2(self.r1(self.c1(self.quant(x)))))
        return self.dequant(self.fc(torch.flatten(h, 1)))


torch.manual_seed(2)
plain = train_digits(PlainCNN(), Xtr, ytr, epochs=50, seed=2, shift=True)
fl_acc = accuracy(torch_out(plain, Xte))
# its float original, exported before quantisation (torch_int8 works on a copy)
m = export(plain, ex, os.path.join(HERE, "digits_cnn.onnx"))
rec = float_model_record(
    "digits_cnn", plain, m, Xte[:10], DIGITS_NOTE,
    "plain CNN on 1x8x8 digits, the float original of digits_cnn_int8_torch: Conv 3x3 1->8 pad 1 -> ReLU -> "
    "Conv 3x3 8->16 stride 2 pad 1 -> ReLU -> Flatten -> Linear 256->10 (logits).", Xte)
rec["test_accuracy"] = accuracy(ref(m, Xte)); rec["labels"] = yte[:10].tolist()
rec["training"] = "digits training split (1347), 50 epochs Adam + one-cycle lr 1e-2, batch 64, random 1-pixel shifts, seed 2"
SUMMARY["digits_cnn"]["acc"] = rec["test_accuracy"]
log("digits_cnn: test accuracy %.4f" % rec["test_accuracy"])
write_json("digits_cnn", rec)
qplain = torch_int8(plain, [["c1", "r1"], ["c2", "r2"]], Xtr)
mq = export(qplain, ex, os.path.join(HERE, "digits_cnn_int8_torch.onnx"))
log("wrote digits_cnn_int8_torch.onnx (%d nodes)" % len(mq.graph.node))
rec = int8_record("digits_cnn_int8_torch", mq, Xte[:10], DIGITS_NOTE,
                  "PyTorch 1.13 eager int8 (oneDNN) of a plain CNN: Conv 3x3 1->8 pad 1 -> ReLU -> Conv 3x3 8->16 "
                  "stride 2 pad 1 -> ReLU -> Flatten -> Linear 256->10; Conv+ReLU fused; the quantised Flatten "
                  "exports as DequantizeLinear -> Flatten -> QuantizeLinear.", q=qplain, X_acc=Xte)
rec["labels"] = yte[:10].tolist(); rec["test_accuracy_float_model_torch"] = fl_acc
rec["training"] = "digits training split (1347), 50 epochs Adam + one-cycle lr 1e-2, batch 64, random 1-pixel shifts, seed 2"
SUMMARY["digits_cnn_int8_torch"]["acc_float_model"] = fl_acc
write_json("digits_cnn_int8_torch", rec)

# 5. cifar_resnet: random He-initialised CIFAR-shaped ResNet, and its ORT QDQ copy
torch.manual_seed(5)
cifar = ResNet(3, 16, [(16, 1), (32, 2), (64, 2)])
for mod in cifar.modules():
    if isinstance(mod, nn.Conv2d):
        nn.init.kaiming_normal_(mod.weight, mode="fan_in", nonlinearity="relu")
    elif isinstance(mod, nn.BatchNorm2d):
        nn.init.uniform_(mod.weight, 0.5, 1.5); nn.init.uniform_(mod.bias, -0.2, 0.2)
        mod.momentum = None                           # running stats = the statistics of one batch
    elif isinstance(mod, nn.Linear):
        nn.init.kaiming_normal_(mod.weight, nonlinearity="relu"); nn.init.uniform_(mod.bias, -0.1, 0.1)
gen = torch.Generator().manual_seed(50)
with torch.no_grad():
    cifar.train(); cifar(torch.rand(64, 3, 32, 32, generator=gen)); cifar.eval()
    for mod in cifar.modules():                   # ... then jittered by up to 10 %
        if isinstance(mod, nn.BatchNorm2d):
            mod.running_mean.mul_(1 + 0.2 * (torch.rand(mod.num_features, generator=gen) - 0.5))
            mod.running_var.mul_(1 + 0.2 * (torch.rand(mod.num_features, generator=gen) - 0.5))
nparams = sum(p.numel() for p in cifar.parameters())
rng = np.random.default_rng(5)
cifar_in = (rng.integers(0, 256, (10, 3, 32, 32)) / 256.0).astype(np.float32)
cifar_check = (rng.integers(0, 256, (64, 3, 32, 32)) / 256.0).astype(np.float32)
cifar_calib = rng.random((64, 3, 32, 32)).astype(np.float32)
CIFAR_NOTE = ("10 random inputs, each value k/256 with k uniform in 0..255 (numpy default_rng(5)), shaped 3x32x32, "
              "flattened in NCHW order")
m = export_bn(cifar, torch.from_numpy(cifar_in[:1]), os.path.join(HERE, "cifar_resnet.onnx"))
rec = float_model_record(
    "cifar_resnet", cifar, m, cifar_in, CIFAR_NOTE,
    "CIFAR-shaped ResNet with random weights (no training): stem Conv 3x3 3->16 pad 1 -> BN -> ReLU; stage 1 basic "
    "block 16 (identity skip); stage 2 basic block 32, stride 2, Conv 1x1 stride 2 + BN projection skip; stage 3 basic "
    "block 64, stride 2, projection skip; GlobalAveragePool; Flatten; Linear 64->10. Convs He-normal (fan_in) without "
    "bias; BN gamma U(0.5,1.5), beta U(-0.2,0.2), running mean/var = the statistics of 64 random inputs, jittered by "
    "up to 10 %%; %d parameters." % nparams, cifar_check)
rec["parameters"] = nparams
write_json("cifar_resnet", rec)
mq = make_ort_qdq.make(m, cifar_calib)
save(mq, "cifar_resnet_int8_ort")
rec = int8_record("cifar_resnet_int8_ort", mq, cifar_in, CIFAR_NOTE,
                  "ONNX Runtime QDQ layout of cifar_resnet made by make_ort_qdq.py (BN folded, int8 per-channel "
                  "weights, int32 biases, uint8 MinMax activations) calibrated on 64 random inputs uniform in [0, 1] "
                  "(numpy default_rng(5), drawn after the 10 inputs and 64 check inputs).")
write_json("cifar_resnet_int8_ort", rec)
log("cifar_resnet: %d parameters" % nparams)


# 6. small graph-op models with random weights
def small_inputs(shape, seed):
    r = np.random.default_rng(seed)
    return (r.integers(-64, 65, (10,) + shape) / 64.0).astype(np.float32), \
           (r.integers(-64, 65, (256,) + shape) / 64.0).astype(np.float32)


def small_note(shape, seed):
    return ("10 random inputs, each value k/64 with k uniform in -64..64 (numpy default_rng(%d)), shaped %s, flattened "
            "in NCHW order" % (seed, "x".join(map(str, shape))))


class MobileNetBlock(nn.Module):
    """Inverted residual (MobileNetV2): 1x1 expand 4->12, ReLU6 (nn.ReLU6: torch writes Relu then Clip 0..6),
    depthwise 3x3 pad 1 (groups 12), ReLU6 (F.hardtanh(0, 6): a Clip 0..6 alone), 1x1 project 12->4, + x (Add);
    then Flatten, Linear 144->10."""

    def __init__(self):
        super().__init__()
        self.expand = nn.Conv2d(4, 12, 1); self.dw = nn.Conv2d(12, 12, 3, 1, 1, groups=12)
        self.project = nn.Conv2d(12, 4, 1); self.fc = nn.Linear(4 * 36, 10)

    def forward(self, x):
        h = F.hardtanh(self.dw(F.relu6(self.expand(x))), 0.0, 6.0)
        return self.fc(torch.flatten(x + self.project(h), 1))


class Inception(nn.Module):
    """Branches 1x1 conv 3->4; 1x1 conv 3->4, ReLU, 3x3 conv 4->6 pad 1; MaxPool 3x3 stride 1 pad 1 then 1x1 conv 3->4;
    Concat on channels (14), ReLU, Flatten, Linear 896->10."""

    def __init__(self):
        super().__init__()
        self.b1 = nn.Conv2d(3, 4, 1); self.b2a = nn.Conv2d(3, 4, 1); self.b2b = nn.Conv2d(4, 6, 3, 1, 1)
        self.b3 = nn.Conv2d(3, 4, 1); self.fc = nn.Linear(14 * 64, 10)

    def forward(self, x):
        a = self.b1(x); b = self.b2b(F.relu(self.b2a(x))); c = self.b3(F.max_pool2d(x, 3, 1, 1))
        return self.fc(torch.flatten(F.relu(torch.cat([a, b, c], 1)), 1))


class MaxPoolNet(nn.Module):
    """Conv 3x3 2->6 pad 1, ReLU, MaxPool 2x2 stride 2, Conv 3x3 6->8 pad 1, MaxPool 3x3 stride 1 pad 1 (on values of both
    signs and read by the Gemm directly, so its -inf padding shows in the output: zero padding gives other outputs),
    Flatten, Linear 128->10."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(2, 6, 3, 1, 1); self.c2 = nn.Conv2d(6, 8, 3, 1, 1); self.fc = nn.Linear(8 * 16, 10)

    def forward(self, x):
        h = F.max_pool2d(F.relu(self.c1(x)), 2, 2)
        h = F.max_pool2d(self.c2(h), 3, 1, 1)
        return self.fc(torch.flatten(h, 1))


class MiscOps(nn.Module):
    """See misc_ops in README.md."""

    def __init__(self):
        super().__init__()
        self.dil = nn.Conv2d(2, 4, 3, padding=2, dilation=2); self.prelu = nn.PReLU(4)
        self.asym = nn.Conv2d(4, 4, 3); self.drop = nn.Dropout(0.3); self.fc = nn.Linear(48, 10)
        with torch.no_grad():
            self.prelu.weight.copy_(torch.tensor([0.25, -0.5, 0.1, 1.5]))
            self.dil.weight.mul_(2.0); self.asym.weight.mul_(12.0)  # so that HardSigmoid saturates on some inputs

    def forward(self, x):
        h = F.pad(x, (1, 2, 0, 1), value=0.25)                    # W: left 1, right 2; H: top 0, bottom 1
        h = F.leaky_relu(self.dil(h), 0.1)
        h = F.avg_pool2d(h, 3, stride=2, padding=1, count_include_pad=False)
        h = self.prelu(h)
        h = self.asym(F.pad(h, (0, 1, 1, 0)))                     # fused into Conv pads [1, 0, 0, 1] below
        a, b, c = torch.sigmoid(h), torch.tanh(h), F.hardsigmoid(h)
        h = (a - b) * 1.5 + c / 2.0 - 0.25
        h = self.drop(h)                                           # eval: nothing exported; a Dropout node is inserted below
        h = h.permute(0, 2, 3, 1).unsqueeze(1)
        h = torch.squeeze(h * 2.0, 1)
        return self.fc(h.reshape(1, -1))


def fold_constants(m):
    """Replace nodes all of whose inputs are constants (the pads computations torch writes for F.pad)
    by initializers; Constant nodes read by data nodes stay."""
    g = m.graph
    const = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    keep, folded = [], {}
    for n in g.node:
        if n.op_type == "Constant":
            const[n.output[0]] = numpy_helper.to_array(n.attribute[0].t); keep.append(n); continue
        if n.input and all((not i) or i in const for i in n.input):
            outs = onnx_ref.run_node(n, [const[i] if i else None for i in n.input], np.float32)
            for o, v in zip(n.output, outs):
                const[o] = v; folded[o] = v
            continue
        keep.append(n)
    used = {i for n in keep for i in n.input} | {o.name for o in g.output}
    keep = [n for n in keep if n.op_type != "Constant" or n.output[0] in used]
    del g.node[:]; g.node.extend(keep)
    g.initializer.extend(numpy_helper.from_array(np.asarray(v), k) for k, v in folded.items() if k in used)
    return m


def fuse_zero_pad_into_conv(m):
    """Pad(constant 0, spatial axes only) -> Conv becomes one Conv with (asymmetric) pads."""
    g = m.graph
    init = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    readers = {}
    for n in g.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    drop = []
    for n in g.node:
        if n.op_type != "Pad" or (len(n.input) > 2 and n.input[2]):
            continue
        r = readers.get(n.output[0], [])
        if len(r) != 1 or r[0].op_type != "Conv":
            continue
        p = init[n.input[1]]
        if any(p[[0, 1, 4, 5]]):
            continue
        conv = r[0]
        old = [a for a in conv.attribute if a.name == "pads"]
        base = list(old[0].ints) if old else [0, 0, 0, 0]
        new = [base[0] + int(p[2]), base[1] + int(p[3]), base[2] + int(p[6]), base[3] + int(p[7])]
        for a in old:
            conv.attribute.remove(a)
        conv.attribute.append(helper.make_attribute("pads", new))
        conv.input[0] = n.input[0]; drop.append(n)
    for n in drop:
        g.node.remove(n)
    used = {i for n in g.node for i in n.input}
    keep = [i for i in g.initializer if i.name in used]
    del g.initializer[:]; g.initializer.extend(keep)
    return m


def insert_after(m, op, new_node_fn):
    """Insert new_node_fn(tensor) -> node right after the first node of type op, rewiring its readers."""
    g = m.graph
    for k, n in enumerate(g.node):
        if n.op_type == op:
            t = n.output[0]; nn_ = new_node_fn(t); new_out = nn_.output[0]
            for r in g.node:
                for j, i in enumerate(r.input):
                    if i == t:
                        r.input[j] = new_out
            for o in g.output:
                assert o.name != t
            g.node.insert(k + 1, nn_)
            return m
    raise KeyError(op)


def small(name, model, shape, seed, desc, post=None):
    torch.manual_seed(seed)
    model = model().eval()
    X10, Xc = small_inputs(shape, seed)
    path = os.path.join(HERE, name + ".onnx")
    m = export(model, torch.from_numpy(X10[:1]), path)
    if post:
        m = post(m); onnx.checker.check_model(m, full_check=True); onnx.save(m, path)
    rec = float_model_record(name, model, m, X10, small_note(shape, seed), desc, Xc, per_sample=True)
    write_json(name, rec)
    log("wrote %s.onnx (%d bytes): %s" % (name, os.path.getsize(path), " ".join(op_list(m))))
    return model


def _mobilenet():
    mdl = MobileNetBlock()
    with torch.no_grad():
        mdl.expand.weight.mul_(8.0); mdl.dw.weight.mul_(2.0)
    return mdl


small("mobilenet_block", _mobilenet, (4, 6, 6), 61, MobileNetBlock.__doc__.replace("\n    ", " ")
      + " Clip min/max are Constant inputs 0 and 6. Random weights (torch default init, seed 61), the expand weights "
        "scaled by 8 and the depthwise weights by 2 so that both ReLU6 clip at 6 on some inputs.")
small("inception_concat", Inception, (3, 8, 8), 62, Inception.__doc__.replace("\n    ", " ")
      + " Random weights (torch default init, seed 62).")
small("maxpool_net", MaxPoolNet, (2, 8, 8), 63, MaxPoolNet.__doc__.replace("\n    ", " ")
      + " Random weights (torch default init, seed 63).")


def misc_post(m):
    m = fold_constants(m)
    m = fuse_zero_pad_into_conv(m)
    ratio = numpy_helper.from_array(np.array(0.3, np.float32), "dropout_ratio")
    m.graph.initializer.append(ratio)
    # Dropout (eval: identity) after the Sub of the constant 0.25, before Transpose; Identity after Transpose
    prod = {o: n for n in m.graph.node for o in n.output}
    tr = next(n for n in m.graph.node if n.op_type == "Transpose")
    src = prod[tr.input[0]]
    assert src.op_type == "Sub", src.op_type
    idx = list(m.graph.node).index(tr)
    d = helper.make_node("Dropout", [tr.input[0], "dropout_ratio"], ["dropout_out"], name="eval_Dropout")
    tr.input[0] = "dropout_out"; m.graph.node.insert(idx, d)
    # torch leaves the output's batch dimension symbolic after the Reshape to [1, -1]; the model has batch 1
    m.graph.output[0].type.tensor_type.shape.dim[0].dim_value = 1
    return insert_after(m, "Transpose", lambda t: helper.make_node("Identity", [t], [t + "_identity"], name="extra_Identity"))


small("misc_ops", MiscOps, (2, 6, 6), 64,
      "Random weights (torch default init, seed 64; PReLU slopes 0.25, -0.5, 0.1, 1.5). x [1,2,6,6] -> Pad constant "
      "0.25, asymmetric (H top 0 bottom 1, W left 1 right 2) -> Conv 3x3 2->4 dilation 2 pad 2 (weights x2) -> LeakyRelu 0.1 -> "
      "AveragePool 3x3 stride 2 pad 1 count_include_pad 0 -> PRelu (per channel, slope [4,1,1]) -> Conv 3x3 4->4 "
      "(weights x12, so that HardSigmoid saturates on some inputs) with asymmetric pads [1,0,0,1] (a torch F.pad fused into the Conv after export) -> h; "
      "(Sigmoid(h) - Tanh(h)) * 1.5 + HardSigmoid(h) / 2 - 0.25 (Sub of two computed tensors, Mul/Div/Sub by "
      "Constant scalars, Add) -> Dropout (ratio 0.3, no training_mode: identity; inserted after export) -> Transpose "
      "[0,2,3,1] -> Identity (inserted) -> Unsqueeze axis 1 -> Mul 2 -> Squeeze axis 1 -> Reshape [1,-1] (48) -> "
      "Gemm 48->10. The pads of the constant Pad are an int64 initializer (torch's pads subgraph folded).",
      post=misc_post)

print(json.dumps(SUMMARY, indent=1, sort_keys=True))
log("done")
