#!/usr/bin/python3
"""Train a 28x28 CNN, the size of an MNIST model, on scikit-learn's bundled digits upscaled from 8x8 to
28x28 (bilinear, pixel/16 in [0, 1]), and export it as generate.py (beside this file) exports the 8x8
ones: Debian's PyTorch, torch.onnx.export at opset 13, samples.json with the first 10 test images and
the outputs of torch in float32 and float64 and of the independent numpy evaluator (generate.export).

  cnn_mnist28/   1x28x28 -> Conv 3x3 8 pad 1 -> ReLU -> Conv 3x3 16 stride 2 pad 1 -> ReLU
                 -> Flatten -> Linear 3136 -> 10                       (Conv, Relu, Flatten, Gemm)

  ../cnn_unsupported/cnn_maxpool.onnx   1x8x8 -> Conv 3x3 4 pad 1 -> ReLU -> MaxPool 2x2 -> Flatten -> Linear 64 -> 10,
                 untrained: a CNN with an operator nnbound does not read (MaxPool), for the error that names it

Lowered to dense matrices, the second Conv of cnn_mnist28 would be 3136 x 6272 (19.7 million entries): nnbound reads
its convolutions as structured layers (nn.Conv2D).
Run from this folder: /usr/bin/python3 generate28.py   (needs python3-torch, python3-onnx,
python3-sklearn)
"""
import os

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import generate  # noqa: E402  (train, evaluate; sets one thread and deterministic algorithms)

NAME = "cnn_mnist28"


def upscale(X):
    """Upscale [N,1,8,8] images to [N,1,28,28], bilinear, rounded to float32."""
    with torch.no_grad():
        y = F.interpolate(torch.tensor(X, dtype=torch.float64), size=(28, 28), mode="bilinear", align_corners=False)
    return np.clip(y.numpy(), 0, 1).astype(np.float32)


def main():
    dg = load_digits()
    X = upscale((dg.data / 16.0).reshape(-1, 1, 8, 8))
    Xtr, Xte, ytr, yte = train_test_split(X, dg.target, test_size=0.25, random_state=0, stratify=dg.target)
    torch.manual_seed(15)
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 16, 3, stride=2, padding=1),
                          nn.ReLU(), nn.Flatten(), nn.Linear(16 * 14 * 14, 10))
    generate.train(model, torch.tensor(Xtr), torch.tensor(ytr), epochs=15)
    generate.export(NAME, model, Xte, yte, list(range(10)), size=28,
                    desc="8x8 digit image upscaled to 28x28 (bilinear), row-major, in [0,1]")


def maxpool():
    """Export the untrained MaxPool CNN (no samples: nnbound refuses it)."""
    torch.manual_seed(16)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64, 10))
    d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cnn_unsupported")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "cnn_maxpool.onnx")
    torch.onnx.export(model.eval(), torch.zeros(1, 1, 8, 8), path, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "N"}, "y": {0: "N"}}, opset_version=13, do_constant_folding=True)
    print("cnn_maxpool", [n.op_type for n in onnx.load(path).graph.node], "%d bytes" % os.path.getsize(path))


if __name__ == "__main__":
    main()
    maxpool()
