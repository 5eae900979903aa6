"""The residual CNNs of this folder's models (digits_rescnn, digits_resid, cifar_resnet, cifar_trained)
and their ONNX export: imported by make.py and make_cifar.py."""
import onnx
import torch
import torch.nn as nn
import torch.ao.quantization as tq


def export(model, example, path, **kw):
    model.eval()
    torch.onnx.export(model, example, path, input_names=["x"], output_names=["y"], opset_version=13, **kw)
    m = onnx.load(path)
    onnx.checker.check_model(m, full_check=True)
    return m



def conv_bn(i, o, k=3, s=1, p=1):
    return nn.Conv2d(i, o, k, s, p, bias=False), nn.BatchNorm2d(o)


class Block(nn.Module):
    """Conv-BN-ReLU-Conv-BN plus a skip (identity, or a strided 1x1 Conv-BN projection), then ReLU."""

    def __init__(self, i, o, stride):
        super().__init__()
        self.c1, self.bn1 = conv_bn(i, o, 3, stride, 1); self.r1 = nn.ReLU()
        self.c2, self.bn2 = conv_bn(o, o, 3, 1, 1)
        self.proj = nn.Sequential(*conv_bn(i, o, 1, stride, 0)) if stride != 1 or i != o else None
        self.add = torch.ao.nn.quantized.FloatFunctional(); self.r2 = nn.ReLU()

    def forward(self, x):
        h = self.bn2(self.c2(self.r1(self.bn1(self.c1(x)))))
        return self.r2(self.add.add(h, x if self.proj is None else self.proj(x)))

    def fuse_list(self, p):
        f = [[p + "c1", p + "bn1", p + "r1"], [p + "c2", p + "bn2"]]
        return f + ([[p + "proj.0", p + "proj.1"]] if self.proj is not None else [])


class ResNet(nn.Module):
    """stem Conv 3x3 pad 1 -> BN -> ReLU, residual blocks, GlobalAveragePool (or, with flat_hw, none), Flatten,
    Linear. QuantStub / DeQuantStub are identities in the float model (they export to nothing)."""

    def __init__(self, cin, stem, stages, classes=10, flat_hw=None):
        super().__init__()
        self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
        self.stem, self.bn = conv_bn(cin, stem); self.relu = nn.ReLU()
        blocks, c = [], stem
        for o, s in stages:
            blocks.append(Block(c, o, s)); c = o
        self.blocks = nn.Sequential(*blocks)
        self.pool = nn.AdaptiveAvgPool2d(1) if flat_hw is None else nn.Identity()
        self.fc = nn.Linear(c * (flat_hw or 1), classes)

    def forward(self, x):
        h = self.relu(self.bn(self.stem(self.quant(x))))
        h = torch.flatten(self.pool(self.blocks(h)), 1)
        return self.dequant(self.fc(h))

    def fuse_list(self):
        f = [["stem", "bn", "relu"]]
        for i, b in enumerate(self.blocks):
            f += b.fuse_list("blocks.%d." % i)
        return f


def export_bn(model, example, path):
    # torch 1.13 folds BatchNormalization into the Conv when exporting with TrainingMode.EVAL, even
    # with do_constant_folding=False; PRESERVE on a model in eval mode keeps the BN nodes (inference
    # form, one output, running statistics as initializers).
    assert not model.training
    return export(model, example, path, do_constant_folding=False, training=torch.onnx.TrainingMode.PRESERVE)
