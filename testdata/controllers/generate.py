"""Small controllers for the default path's acceptance figures (bench controllers).

tanh-output controllers (FB-8 copies are made by nnbound itself):
  tanh4a, tanh6a, tanh4b, tanh6b   n -> 32 -> 32 -> 2, ReLU hidden, tanh output
      (Gemm, Relu, Gemm, Relu, Gemm, Tanh), n = 4 or 6 inputs, box [-1, 1]^n,
      fit u = tanh(x K + sin(pi x_{0,1}) / 2) for a random K (n x 2, seeded) on 4000 random
      points of the box by train.py, as certify/testdata/tanhout/generate.py trains tanhout (Adam,
      MSE, 300 epochs, batches of 200), exported with torch.onnx.export (opset 13, input x, output y).

int8 MLPs (float model and its PyTorch int8 copies, per channel and per tensor):
  mlp5 (5-32-32-2), mlp6 (6-40-20-4), mlp8 (8-32-16-3), ReLU hidden, linear output, box [-1, 1]^n,
      fit u = clip(x K + sin(pi x_0) / 2, -1, 1) (random K, seeded) on 4000 random points,
      quantised and exported exactly as nn/onnx/testdata/qdq/generate.py does (its quantised()
      and write(): torch eager post-training static quantisation, oneDNN engine, calibrated on
      1000 random points of the box, QDQ ONNX, samples.json with torch's int8 outputs).

Each tanh model's <name>/samples.json holds inputs and outputs_float64 (the float64 torch
model). Run: /usr/bin/python3 generate.py (python3-torch 1.13, python3-onnx 1.12; ~1 min).
Training uses one thread; the files may differ in the last bits between machines.
"""
import json, os, sys
import numpy as np, onnx, torch, torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "nn", "onnx", "testdata", "qdq"))
import generate as qdq  # noqa: E402  (quantised, write; its main() does not run on import)
from train import train  # noqa: E402  (this folder's training loop, shared with tanhout)

torch.set_num_threads(1)
torch.backends.quantized.engine = "onednn"


def data(n_in, n_out, seed, squash):
    torch.manual_seed(seed)
    X = torch.rand(4000, n_in) * 2 - 1
    K = torch.randn(n_in, n_out) * 0.8
    Y = X @ K + 0.5 * torch.sin(np.pi * X[:, [j % 2 for j in range(n_out)]])
    return X, squash(Y)


def mlp(sizes, out_act=None):
    layers = []
    for k in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[k], sizes[k + 1]))
        if k < len(sizes) - 2:
            layers.append(nn.ReLU())
    if out_act is not None:
        layers.append(out_act)
    return nn.Sequential(*layers)


def tanh_controller(name, n_in, seed):
    X, Y = data(n_in, 2, seed, torch.tanh)
    model = mlp([n_in, 32, 32, 2], nn.Tanh())
    mse = train(model, X, Y, epochs=300, lr=1e-2, batch=200, seed=seed)
    model = model.eval()
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, name + ".onnx")
    torch.onnx.export(model, torch.zeros(1, n_in), path, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "N"}, "y": {0: "N"}}, opset_version=13, do_constant_folding=True)
    onnx.checker.check_model(onnx.load(path), full_check=True)
    rng = np.random.default_rng(seed)
    xs = np.concatenate([rng.uniform(-1, 1, (6, n_in)), -np.ones((1, n_in)), np.ones((1, n_in))])
    xs = xs.astype(np.float32).astype(np.float64)
    with torch.no_grad():
        y64 = model.double()(torch.from_numpy(xs)).numpy()
    rec = {"model": name + ".onnx", "input_box": [[-1.0] * n_in, [1.0] * n_in], "train_mse": mse,
           "target": "tanh(x K + sin(pi x_{0,1}) / 2), K seeded %d" % seed,
           "inputs": xs.tolist(), "outputs_float64": y64.tolist()}
    with open(os.path.join(d, "samples.json"), "w") as fh:
        json.dump(rec, fh, indent=1)
    print(name, "mse %.2e" % mse, flush=True)


def int8_mlp(name, sizes, seed):
    n_in = sizes[0]
    X, Y = data(n_in, sizes[-1], seed, lambda y: torch.clamp(y, -1, 1))
    body = mlp(sizes)
    mse = train(body, X, Y, epochs=300, lr=1e-2, batch=200, seed=seed)
    body.eval()
    rng = np.random.default_rng(seed)
    ins = np.concatenate([rng.uniform(-1, 1, (6, n_in)), -np.ones((1, n_in)), np.ones((1, n_in))]).astype(np.float32)
    qdq.write(name, body, -np.ones(n_in), np.ones(n_in), X[:1000], ins,
              {"calibration": "1000 random points of [-1, 1]^%d" % n_in, "train_mse": mse}, root=HERE)


tanh_controller("tanh4a", 4, 1)
tanh_controller("tanh6a", 6, 2)
tanh_controller("tanh4b", 4, 3)
tanh_controller("tanh6b", 6, 4)
int8_mlp("mlp5", [5, 32, 32, 2], 5)
int8_mlp("mlp6", [6, 40, 20, 4], 6)
int8_mlp("mlp8", [8, 32, 16, 3], 8)
