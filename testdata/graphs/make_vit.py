#!/usr/bin/python3
"""A tiny vision transformer on the 8x8 digits (vit_digits.onnx) and its reference outputs.

Run from the repository root: /usr/bin/python3 testdata/graphs/make_vit.py
Needs Debian's python3-numpy, python3-onnx (1.12), python3-torch (1.13, CPU) and python3-sklearn.
Deterministic (fixed seeds, one thread, deterministic algorithms); about a minute on one core.

The model: patch embedding Conv 2x2 stride 2 1->16 (16 tokens of width 16) plus learned positions;
one pre-norm block (LayerNorm, 2-head self-attention with a fused q/k/v Linear 16->48 split in
three, LayerNorm, MLP 16->32->16 with exact (erf) GELU, two residual Adds); the mean over tokens,
LayerNorm, Linear 16->10. torch.onnx.export at opset 13 writes LayerNorm as its decomposition
(ReduceMean, Sub, Pow 2, Add eps, Sqrt, Div, Mul, Add) and GELU as Div, Erf, Add, Mul, Mul; the
head reshapes read the batch size through Shape, Gather, Unsqueeze, Concat.

The reference outputs come from onnx_ref.py (this folder) in float64; torch's float32 and float64
outputs are checked against them.
"""
import copy
import json
import math
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import onnx_ref  # noqa: E402
from digits_train import train_digits  # noqa: E402

torch.set_num_threads(1)
torch.use_deterministic_algorithms(True)

with open(os.path.join(HERE, "digits_test.json")) as fh:
    _test = json.load(fh)
Xte = np.asarray(_test["inputs"], np.float32).reshape(-1, 1, 8, 8)
yte = np.asarray(_test["labels"])


def training_split():
    """The training part of the team's split (the complement of digits_test.json)."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    dg = load_digits()
    X = (dg.data / 16.0).astype(np.float32)
    Xtr, Xt, ytr, yt = train_test_split(X, dg.target, test_size=0.25, random_state=0, stratify=dg.target)
    assert np.array_equal(Xt.reshape(-1, 1, 8, 8), Xte) and np.array_equal(yt, yte)
    return Xtr.reshape(-1, 1, 8, 8), ytr


class Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.h, self.dh = heads, d // heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q = q.reshape(b, t, self.h, self.dh).transpose(1, 2)
        k = k.reshape(b, t, self.h, self.dh).transpose(1, 2)
        v = v.reshape(b, t, self.h, self.dh).transpose(1, 2)
        att = F.softmax(q @ k.transpose(-2, -1) / math.sqrt(self.dh), dim=-1)
        o = (att @ v).transpose(1, 2).reshape(b, t, d)
        return self.proj(o)


class TinyViT(nn.Module):
    def __init__(self, d=16, heads=2, hidden=32):
        super().__init__()
        self.patch = nn.Conv2d(1, d, 2, 2)
        self.pos = nn.Parameter(0.02 * torch.randn(1, 16, d))
        self.ln1, self.attn = nn.LayerNorm(d), Attention(d, heads)
        self.ln2, self.fc1, self.fc2 = nn.LayerNorm(d), nn.Linear(d, hidden), nn.Linear(hidden, d)
        self.lnf, self.head = nn.LayerNorm(d), nn.Linear(d, 10)

    def forward(self, x):
        t = self.patch(x).flatten(2).transpose(1, 2) + self.pos
        t = t + self.attn(self.ln1(t))
        t = t + self.fc2(F.gelu(self.fc1(self.ln2(t))))
        return self.head(self.lnf(t.mean(1)))


def fl(a):
    return np.asarray(a, np.float64).tolist()


def main():
    Xtr, ytr = training_split()
    torch.manual_seed(7)
    model = train_digits(TinyViT(), Xtr, ytr, epochs=60, seed=7, optimiser=torch.optim.AdamW)
    path = os.path.join(HERE, "vit_digits.onnx")
    torch.onnx.export(model, torch.from_numpy(Xte[:1]), path, input_names=["x"], output_names=["y"], opset_version=13)
    m = onnx.load(path)
    onnx.checker.check_model(m, full_check=True)
    ref = lambda X, dt=np.float64: np.concatenate([onnx_ref.evaluate(m, X[i:i + 1], dt).reshape(1, -1) for i in range(len(X))])
    y64 = ref(Xte)
    m64 = copy.deepcopy(model).double()
    with torch.no_grad():
        t32 = model(torch.from_numpy(Xte)).numpy().astype(np.float64)
        t64 = m64(torch.from_numpy(Xte).double()).numpy()
    d64, d32 = float(np.abs(y64 - t64).max()), float(np.abs(ref(Xte, np.float32) - t32).max())
    # the file holds float32 constants (epsilon, sqrt(8), the positions) that torch's float64 copy keeps
    # in float64, so the two float64 evaluations differ by ~1e-7
    assert d64 < 1e-5 and d32 < 1e-4, (d64, d32)
    acc = float((y64.argmax(1) == yte).mean())
    rec = {
        "model": "vit_digits.onnx",
        "description": __doc__.split("\n\n")[1].replace("\n", " "),
        "producer": ("%s %s" % (m.producer_name, m.producer_version)).strip(),
        "opset": m.opset_import[0].version,
        "ops": sorted(set(n.op_type for n in m.graph.node)), "node_count": len(m.graph.node),
        "input_shape": [1, 1, 8, 8], "output_shape": [1, 10],
        "inputs_note": "the first 10 images of the digits test split (digits_test.json), flattened NCHW",
        "inputs": fl(Xte[:10].reshape(10, -1)),
        "outputs_float64": fl(y64[:10]),
        "crosscheck": {"inputs": len(Xte), "max_abs_onnx_ref_float64_vs_torch_float64": d64,
                       "max_abs_onnx_ref_float32_vs_torch_float32": d32},
        "test_accuracy": acc,
        "labels": yte[:10].tolist(),
        "training": "digits training split (1347), 60 epochs AdamW + one-cycle lr 1e-2, batch 64, seed 7",
    }
    with open(os.path.join(HERE, "vit_digits.json"), "w") as fh:
        fh.write("{\n" + ",\n".join(" %s: %s" % (json.dumps(k), json.dumps(v)) for k, v in rec.items()) + "\n}\n")
    print("vit_digits: test accuracy %.4f, onnx_ref vs torch float64 %.3g, float32 %.3g, ops %s"
          % (acc, d64, d32, rec["ops"]))


if __name__ == "__main__":
    main()
