#!/usr/bin/python3
"""Train leakyrelu_3x24.onnx: a 2 -> 24 -> 24 -> 24 -> 1 leaky-ReLU MLP (negative slope 0.1)
fit to y = sin(pi a) cos(pi b) on a 41x41 grid of [-1, 1]^2, exported with torch.onnx.export
(opset 13, Gemm and LeakyRelu nodes) as the shared torch models are. Deterministic (seed 0, one
thread). Run: /usr/bin/python3 gen.py   (needs python3-torch and python3-onnx)
"""
import os
import torch
import torch.nn as nn
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
torch.set_num_threads(1)
torch.manual_seed(0)

g = torch.linspace(-1, 1, 41)
a, b = torch.meshgrid(g, g, indexing="ij")
X = torch.stack([a.reshape(-1), b.reshape(-1)], dim=1)
Y = (torch.sin(torch.pi * X[:, 0]) * torch.cos(torch.pi * X[:, 1])).unsqueeze(1)

model = nn.Sequential(nn.Linear(2, 24), nn.LeakyReLU(0.1), nn.Linear(24, 24), nn.LeakyReLU(0.1),
                      nn.Linear(24, 24), nn.LeakyReLU(0.1), nn.Linear(24, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for _ in range(600):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(X), Y)
    loss.backward()
    opt.step()
print("mse %.3g" % float(nn.functional.mse_loss(model(X), Y)))

path = os.path.join(HERE, "leakyrelu_3x24.onnx")
torch.onnx.export(model.eval(), X[:1], path, input_names=["x"], output_names=["y"],
                  dynamic_axes={"x": {0: "N"}, "y": {0: "N"}}, opset_version=13,
                  do_constant_folding=True)
onnx.checker.check_model(onnx.load(path), full_check=True)
