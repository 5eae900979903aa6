#!/usr/bin/python3
"""A trained CIFAR-shaped ResNet (cifar_trained.onnx), its ONNX Runtime int8 copy
(cifar_trained_int8_ort.onnx) and their reference outputs.

Run from the repository root: nice /usr/bin/python3 testdata/graphs/make_cifar.py
Needs Debian's python3-numpy, python3-onnx (1.12), python3-torch (1.13, CPU) and python3-sklearn.
Deterministic (fixed seeds, one thread, deterministic algorithms); a few minutes on one core.

The model is cifar_resnet's architecture (make.py: stem Conv 3x3 3->16 -> BN -> ReLU; basic blocks of
16, 32 and 64 channels, the last two of stride 2 with a Conv 1x1 + BN projection skip; global average
pool; Linear 64->10; 78,042 parameters), trained. There is no CIFAR data on the machine that made it,
so the task is "coloured digits": scikit-learn's 8x8 digits upscaled to 32x32 (bilinear), each
image tinted with a random foreground and background colour (uniform in [0, 1]^3, the foreground
replaced by 1 - background where the two differ by less than 0.3 on average), Gaussian noise of
standard deviation 0.03 added, clipped to [0, 1] and rounded to multiples of 1/255 like an 8-bit
image. Training draws fresh tints and noise every epoch and shifts each batch by up to 2 pixels.

The reference outputs come from onnx_ref.py (this folder), in float64 (and float32 for the int8
copy); torch's float32 and float64 outputs are checked against them.
"""
import copy
import json
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import onnx_ref  # noqa: E402
import make_ort_qdq  # noqa: E402
from make_vit import training_split, Xte, yte  # noqa: E402
from resnet import ResNet, export_bn  # noqa: E402

torch.set_num_threads(1)
torch.use_deterministic_algorithms(True)
EPOCHS = 25


def coloured(X8, rng, shift=0):
    """The coloured-digits images of the 1x8x8 digits X8, [N, 3, 32, 32] float32 in [0, 1], the tints
    and noise drawn from rng; each image rolled by up to shift pixels."""
    n = len(X8)
    x = F.interpolate(torch.from_numpy(X8), size=32, mode="bilinear", align_corners=False).numpy()
    bg, fg = 0.4 * rng.random((n, 3, 1, 1)), 0.6 + 0.4 * rng.random((n, 3, 1, 1))
    img = bg + (fg - bg) * x + 0.03 * rng.standard_normal((n, 3, 32, 32))
    if shift:
        for i in range(n):
            img[i] = np.roll(img[i], tuple(rng.integers(-shift, shift + 1, 2)), axis=(1, 2))
    return (np.minimum(np.round(np.clip(img, 0, 1) * 256), 255) / 256).astype(np.float32)


def train(model, X8, y, epochs, seed):
    """Adam with a one-cycle learning rate (peak 1e-2), batch 64, fresh tints every epoch."""
    torch.manual_seed(seed); rng = np.random.default_rng(seed)
    yt = torch.from_numpy(y)
    opt = torch.optim.Adam(model.parameters(), 3e-3, weight_decay=1e-4)
    steps = (len(X8) + 63) // 64
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 1e-2, total_steps=epochs * steps)
    for ep in range(epochs):
        xt = torch.from_numpy(coloured(X8, rng, shift=2))
        model.train(); perm = torch.from_numpy(rng.permutation(len(X8)))
        for i in range(0, len(X8), 64):
            idx = perm[i:i + 64]
            opt.zero_grad(); F.cross_entropy(model(xt[idx]), yt[idx]).backward(); opt.step(); sched.step()
    model.eval()
    return model


def fl(a):
    return np.asarray(a, np.float64).tolist()


def write_json(name, rec):
    with open(os.path.join(HERE, name + ".json"), "w") as fh:
        fh.write("{\n" + ",\n".join(" %s: %s" % (json.dumps(k), json.dumps(v)) for k, v in rec.items()) + "\n}\n")


def ref(m, X, dt=np.float64):
    return np.concatenate([np.asarray(onnx_ref.evaluate(m, X[i:i + 1], dt)).reshape(1, -1) for i in range(len(X))])


def output_scale(m):
    """(scale, zero point) of the DequantizeLinear whose output is the graph's output (through Identity)."""
    prod = {o: n for n in m.graph.node for o in n.output}
    init = {i.name: onnx.numpy_helper.to_array(i) for i in m.graph.initializer}
    n = prod[m.graph.output[0].name]
    while n.op_type == "Identity":
        n = prod[n.input[0]]
    assert n.op_type == "DequantizeLinear", n.op_type
    return float(init[n.input[1]]), int(init[n.input[2]])


def main():
    Xtr8, ytr = training_split()
    torch.manual_seed(27)
    model = train(ResNet(3, 16, [(16, 1), (32, 2), (64, 2)]), Xtr8, ytr, EPOCHS, seed=27)
    nparams = sum(p.numel() for p in model.parameters())
    test = coloured(Xte, np.random.default_rng(2027))       # the coloured test set, fixed tints
    calib = coloured(Xtr8[:256], np.random.default_rng(2028))
    inputs = test[:10]
    note = ("the first 10 images of the digits test split (digits_test.json) coloured as the docstring of "
            "make_cifar.py says (numpy default_rng(2027)), 3x32x32 flattened in NCHW order, multiples of 1/255")
    m = export_bn(model, torch.from_numpy(inputs[:1]), os.path.join(HERE, "cifar_trained.onnx"))
    y64 = ref(m, test)
    m64 = copy.deepcopy(model).double()
    with torch.no_grad():
        t32 = model(torch.from_numpy(test)).numpy().astype(np.float64)
        t64 = m64(torch.from_numpy(test).double()).numpy()
    d64, d32 = float(np.abs(y64 - t64).max()), float(np.abs(ref(m, test[:64], np.float32) - t32[:64]).max())
    assert d64 < 1e-6 and d32 < 1e-4, (d64, d32)
    acc = float((y64.argmax(1) == yte).mean())
    base = {"input_shape": [1, 3, 32, 32], "output_shape": [1, 10], "inputs_note": note, "inputs": fl(inputs.reshape(10, -1))}
    rec = {"model": "cifar_trained.onnx", "description": __doc__.split("\n\n")[2].replace("\n", " "),
           "ops": sorted(set(n.op_type for n in m.graph.node)), "parameters": nparams, **base,
           "outputs_float64": fl(y64[:10]), "outputs_torch_float32": fl(t32[:10]),
           "crosscheck": {"inputs": len(test), "max_abs_onnx_ref_float64_vs_torch_float64": d64,
                          "inputs_float32": 64, "max_abs_onnx_ref_float32_vs_torch_float32": d32},
           "test_accuracy": acc, "labels": yte[:10].tolist(),
           "training": "coloured digits of the training split (1347), %d epochs Adam + one-cycle lr 1e-2, batch 64, "
                       "fresh tints each epoch, 2-pixel shifts, seed 27" % EPOCHS}
    write_json("cifar_trained", rec)
    mq = make_ort_qdq.make(m, calib)
    onnx.checker.check_model(mq, full_check=True)
    onnx.save(mq, os.path.join(HERE, "cifar_trained_int8_ort.onnx"))
    q64, q32 = ref(mq, test), ref(mq, inputs, np.float32)
    s, z = output_scale(mq)
    qacc = float((q64.argmax(1) == yte).mean())
    rec = {"model": "cifar_trained_int8_ort.onnx",
           "description": "ONNX Runtime QDQ layout of cifar_trained made by make_ort_qdq.py (BN folded, int8 per-channel "
                          "weights, int32 biases, uint8 MinMax activations) calibrated on 256 coloured training images "
                          "(numpy default_rng(2028))",
           "ops": sorted(set(n.op_type for n in mq.graph.node)), **base, "output_scale": s, "output_zero_point": z,
           "outputs_float64": fl(q64[:10]), "outputs_float32": fl(q32), "test_accuracy_float64": qacc,
           "labels": yte[:10].tolist()}
    write_json("cifar_trained_int8_ort", rec)
    print("cifar_trained: %d parameters, test accuracy %.4f (int8 copy %.4f), onnx_ref vs torch float64 %.3g, float32 %.3g"
          % (nparams, acc, qacc, d64, d32))


if __name__ == "__main__":
    main()
