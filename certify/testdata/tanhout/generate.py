#!/usr/bin/python3
"""Train the 5-32-32-2 ReLU controller with a tanh output layer and export it like the team's torch
models (shared networks/torch/generate.py: torch.onnx.export, opset 13, dynamic batch axis, input
`x`, output `y`, samples.json cross-checked by an independent numpy evaluation of the .onnx).

  tanhout.onnx      5 -> 32 -> 32 -> 2, ReLU hidden, tanh output       (Gemm, Relu, Gemm, Relu, Gemm, Tanh)
                    fit [tanh(2 (x0 - x1) + x2 x3), tanh(1.5 sin(pi x4) + x0 - 0.5 x2)]
                    on 4000 random points of [-1,1]^5 (saturating control laws)

Run: NNBOUND_SHARED=path/to/shared python3 generate.py
(needs python3-torch 1.13, python3-onnx 1.12, the shared networks/tools/nnio.py and
testdata/controllers/train.py; about 10 s).
"""
import os, sys
import numpy as np
import torch
import torch.nn as nn
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.environ["NNBOUND_SHARED"], "data", "networks", "tools"))
from nnio import run_onnx, write_json  # noqa: E402
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "testdata", "controllers"))
from train import train  # noqa: E402  (the controllers' training loop)

torch.set_num_threads(1)


def f32(a):
    return np.asarray(a, dtype=np.float32).astype(np.float64)


torch.manual_seed(6)
X = torch.rand(4000, 5) * 2 - 1
Y = torch.stack([torch.tanh(2 * (X[:, 0] - X[:, 1]) + X[:, 2] * X[:, 3]),
                 torch.tanh(1.5 * torch.sin(np.pi * X[:, 4]) + X[:, 0] - 0.5 * X[:, 2])], 1)
model = nn.Sequential(nn.Linear(5, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2), nn.Tanh())
mse = train(model, X, Y, epochs=300, lr=1e-2, batch=200, seed=0)

name = "tanhout"
path = os.path.join(HERE, name + ".onnx")
model = model.eval()
torch.onnx.export(model, torch.zeros(1, 5), path, input_names=["x"], output_names=["y"],
                  dynamic_axes={"x": {0: "N"}, "y": {0: "N"}}, opset_version=13, do_constant_folding=True)
m = onnx.load(path)
onnx.checker.check_model(m, full_check=True)
rng = np.random.default_rng(7)
xs = f32(np.concatenate([rng.uniform(-1, 1, (6, 5)), -np.ones((1, 5)), np.ones((1, 5))]))
xin = torch.as_tensor(np.asarray(xs, dtype=np.float32))
with torch.no_grad():
    y32 = model(xin).numpy().astype(np.float64)
    y64 = model.double()(xin.double()).numpy()
yo = run_onnx(m, {"x": xin.double().numpy()})[0]
assert np.allclose(yo, y64, rtol=1e-10, atol=1e-12), np.max(np.abs(yo - y64))
assert np.allclose(y32, y64, rtol=1e-4, atol=1e-5)
ops = [n.op_type for n in m.graph.node]
s = {"model": name + ".onnx", "producer": "%s %s" % (m.producer_name, m.producer_version),
     "opset": m.opset_import[0].version, "ops": ops, "input_name": "x",
     "input_shape": [d.dim_param or d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim],
     "output_name": "y", "input_desc": "x in [-1,1]^5",
     "inputs": xin.double().numpy(), "outputs_float32": y32, "outputs_float64": y64, "outputs_onnx_float64": yo,
     "max_abs_diff_float32_vs_float64": float(np.max(np.abs(y32 - y64))),
     "train_mse": mse, "target": "[tanh(2 (x0 - x1) + x2 x3), tanh(1.5 sin(pi x4) + x0 - 0.5 x2)], x in [-1,1]^5"}
write_json(os.path.join(HERE, "samples.json"), s)
print(name, ops, "mse %.2e" % mse, "diff32/64 %.2e" % s["max_abs_diff_float32_vs_float64"])
