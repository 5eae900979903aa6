#!/usr/bin/python3
"""Train four small CNNs on scikit-learn's bundled digits (8x8 images, pixel/16 in [0, 1]) with
Debian's PyTorch (python3-torch 1.13) and export them with torch.onnx.export (opset 13), the way the
team's data/networks/torch/generate.py makes its MLPs. Writes, per model, <name>/<name>.onnx and
<name>/samples.json.

  cnn_digits/    1x8x8 -> Conv 3x3 8 pad 1 -> ReLU -> Conv 3x3 16 stride 2 pad 1 -> ReLU
                 -> Flatten -> Linear 256 -> 10                        (Conv, Relu, Flatten, Gemm)
  cnn_bn/        as cnn_digits with BatchNorm2d after each Conv, the second Conv in 2 groups
                 (exported with training=PRESERVE so that BatchNormalization stays a node)
  cnn_avgpool/   Conv 3x3 8 pad 1 -> ReLU -> AvgPool 2x2 -> Conv 3x3 16 pad 1 -> ReLU
                 -> Flatten -> Linear 256 -> 10                        (AveragePool)
  cnn_residual/  Conv 3x3 8 pad 1 -> ReLU -> h; h + Conv(ReLU(Conv(h))) -> ReLU
                 -> Conv 3x3 16 stride 2 pad 1 -> ReLU -> Flatten -> Linear 256 -> 10   (Add)

samples.json holds the first 10 test images ("inputs", [10,1,8,8], float32-exact values written as
float64) with their labels, the torch float32 outputs ("outputs_float32"), the model run in float64
(model.double(), "outputs_float64") and the .onnx file evaluated in float64 by an independent numpy
evaluator (../convref.py, "outputs_onnx_float64"). Floats are written with Python's repr, which
reads back exactly. The output is deterministic.
Run from this folder: /usr/bin/python3 generate.py   (needs python3-torch, python3-onnx,
python3-sklearn)
"""
import json
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import helper, numpy_helper
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import convref  # noqa: E402

torch.set_num_threads(1)
torch.use_deterministic_algorithms(True)


def evaluate(m, x):
    """Evaluate the ONNX graph m in float64 numpy on the batch x."""
    env = {t.name: numpy_helper.to_array(t).astype(np.float64) if numpy_helper.to_array(t).dtype.kind == "f"
           else numpy_helper.to_array(t) for t in m.graph.initializer}
    env[m.graph.input[0].name] = np.asarray(x, dtype=np.float64)
    for n in m.graph.node:
        a = {at.name: helper.get_attribute_value(at) for at in n.attribute}
        v = [env[i] if i else None for i in n.input]
        op = n.op_type
        if op == "Conv":
            y = convref.conv(a, v[0], v[1], v[2] if len(v) > 2 else None)
        elif op == "BatchNormalization":
            y = convref.batch_norm(a, *v)
        elif op == "AveragePool":
            y = convref.average_pool(a, v[0])
        elif op == "Relu":
            y = np.maximum(v[0], 0)
        elif op == "Add":
            y = v[0] + v[1]
        elif op == "Flatten":
            y = v[0].reshape(v[0].shape[0], -1)
        elif op == "Reshape":
            y = v[0].reshape([v[0].shape[i] if d == 0 else int(d) for i, d in enumerate(v[1])])
        elif op == "Constant":
            y = numpy_helper.to_array(a["value"])
        elif op == "Gemm":
            B = v[1].T if a.get("transB", 0) else v[1]
            y = v[0] @ B + v[2]
        else:
            raise ValueError(op)
        env[n.output[0]] = y
    return env[m.graph.output[0].name]


class Residual(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.a, self.b = nn.Conv2d(c, c, 3, padding=1), nn.Conv2d(c, c, 3, padding=1)

    def forward(self, h):
        return h + self.b(torch.relu(self.a(h)))


def models():
    def head():  # made after each seed: every model has its own, seeded, classifier
        return [nn.ReLU(), nn.Flatten(), nn.Linear(256, 10)]

    torch.manual_seed(11)
    yield "cnn_digits", nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(),
                                      nn.Conv2d(8, 16, 3, stride=2, padding=1), *head())
    torch.manual_seed(12)
    yield "cnn_bn", nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                                  nn.Conv2d(8, 16, 3, stride=2, padding=1, groups=2), nn.BatchNorm2d(16),
                                  nn.ReLU(), nn.Flatten(), nn.Linear(256, 10))
    torch.manual_seed(13)
    yield "cnn_avgpool", nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.AvgPool2d(2, count_include_pad=False),
                                       nn.Conv2d(8, 16, 3, padding=1), *head())
    torch.manual_seed(14)
    yield "cnn_residual", nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), Residual(8), nn.ReLU(),
                                        nn.Conv2d(8, 16, 3, stride=2, padding=1), *head())


def train(model, X, y, epochs=40, lr=3e-3, batch=64):
    g = torch.Generator().manual_seed(0)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    model.train()
    for _ in range(epochs):
        perm = torch.randperm(len(X), generator=g)
        for i in range(0, len(X), batch):
            idx = perm[i:i + batch]
            opt.zero_grad()
            loss_fn(model(X[idx]), y[idx]).backward()
            opt.step()
    model.eval()


def export(name, model, Xte, yte, pick, size=8, desc="8x8 digit image, row-major, pixel/16 in [0,1]"):
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, name + ".onnx")
    torch.onnx.export(model, torch.zeros(1, 1, size, size), path, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "N"}, "y": {0: "N"}}, opset_version=13, do_constant_folding=True,
                      training=torch.onnx.TrainingMode.PRESERVE)
    m = onnx.load(path)
    onnx.checker.check_model(m, full_check=True)
    x = torch.tensor(Xte[pick])
    with torch.no_grad():
        y32 = model(x).numpy().astype(np.float64)
        y64 = model.double()(x.double()).numpy()
        acc = float((model(torch.tensor(Xte, dtype=torch.float64)).argmax(1).numpy() == yte).mean())
        model.float()
    yo = evaluate(m, x.double().numpy())
    # torch's BatchNorm2d uses epsilon 1e-5 in float64, the file float32(1e-5): about 1e-11 apart
    assert np.allclose(yo, y64, rtol=1e-9, atol=1e-9), (name, np.max(np.abs(yo - y64)))
    ops = [n.op_type for n in m.graph.node]
    s = {"model": name + ".onnx", "producer": "%s %s" % (m.producer_name, m.producer_version),
         "opset": m.opset_import[0].version, "ops": ops, "input_shape": ["N", 1, size, size],
         "input_desc": desc, "test_accuracy": acc,
         "labels": yte[pick].tolist(), "inputs": x.double().numpy().tolist(), "outputs_float32": y32.tolist(),
         "outputs_float64": y64.tolist(), "outputs_onnx_float64": yo.tolist()}
    with open(os.path.join(d, "samples.json"), "w") as f:
        json.dump(s, f, indent=1)
        f.write("\n")
    print(name, ops, "test accuracy %.3f" % acc, "%d bytes" % os.path.getsize(path))


def main():
    dg = load_digits()
    X = (dg.data / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
    Xtr, Xte, ytr, yte = train_test_split(X, dg.target, test_size=0.25, random_state=0, stratify=dg.target)
    for name, model in models():
        train(model, torch.tensor(Xtr), torch.tensor(ytr))
        export(name, model, Xte, yte, list(range(10)))


if __name__ == "__main__":
    main()
