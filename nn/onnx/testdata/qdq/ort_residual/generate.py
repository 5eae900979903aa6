"""A small residual CNN (1x8x8 -> conv 4 -> relu -> [conv 4 -> relu -> conv 4] + skip -> relu ->
Linear 10, random weights) in the ONNX Runtime QDQ layout (testdata/graphs/make_ort_qdq.py, the
repository's one script for it), with its outputs on five inputs by an independent numpy evaluator of the ONNX
reference semantics (float64). Usage: /usr/bin/python3 generate.py (needs numpy, onnx, torch)."""
import json, os, subprocess, sys
import numpy as np, onnx, torch
from onnx import numpy_helper, helper

# The ONNX Runtime layout is made by the repository's one script for it.
GRAPHS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "..", "testdata", "graphs")

class Residual(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(1, 4, 3, padding=1)
        self.c2 = torch.nn.Conv2d(4, 4, 3, padding=1)
        self.c3 = torch.nn.Conv2d(4, 4, 3, padding=1)
        self.fc = torch.nn.Linear(4 * 64, 10)

    def forward(self, x):
        h = torch.relu(self.c1(x))
        y = self.c3(torch.relu(self.c2(h)))
        return self.fc(torch.relu(h + y).flatten(1))

def evaluate(path, x):
    """The ONNX reference semantics of the few operators the model uses, in float64."""
    g = onnx.load(path).graph
    env = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    env[g.input[0].name] = x.astype(np.float64)
    for n in g.node:
        a = [env[i] for i in n.input]
        at = {t.name: helper.get_attribute_value(t) for t in n.attribute}
        if n.op_type == "QuantizeLinear":
            lo, hi = (0, 255) if a[2].dtype == np.uint8 else (-128, 127)
            out = np.clip(np.round(a[0] / a[1].astype(np.float64)) + a[2], lo, hi).astype(np.int64)
        elif n.op_type == "DequantizeLinear":
            s, z = a[1].astype(np.float64), a[2].astype(np.int64)
            if s.size > 1:
                shape = [1] * a[0].ndim
                shape[at.get("axis", 1)] = -1
                s, z = s.reshape(shape), z.reshape(shape)
            out = (a[0].astype(np.int64) - z).astype(np.float64) * s
        elif n.op_type == "Conv":
            p = at["pads"]
            xp = np.pad(a[0], ((0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])))
            k = a[1].shape[2]
            oh, ow = xp.shape[2] - k + 1, xp.shape[3] - k + 1
            out = np.zeros((1, a[1].shape[0], oh, ow))
            for i in range(oh):
                for j in range(ow):
                    out[:, :, i, j] = np.einsum("nckl,ockl->no", xp[:, :, i:i + k, j:j + k], a[1])
            out += a[2].reshape(1, -1, 1, 1)
        elif n.op_type == "Gemm":
            out = a[0] @ (a[1].T if at.get("transB", 0) else a[1]) + a[2]
        elif n.op_type == "Relu":
            out = np.maximum(a[0], 0)
        elif n.op_type == "Add":
            out = a[0] + a[1]
        elif n.op_type == "Flatten":
            out = a[0].reshape(a[0].shape[0], -1)
        elif n.op_type == "Identity":
            out = a[0]
        else:
            sys.exit("unexpected operator " + n.op_type)
        env[n.output[0]] = out
    return env[g.output[0].name]

def main():
    torch.manual_seed(0)
    rng = np.random.RandomState(0)
    model = Residual().eval()
    torch.onnx.export(model, torch.rand(1, 1, 8, 8), "float.onnx", opset_version=13,
                      input_names=["x"], output_names=["y"])
    np.save("calib.npy", rng.rand(64, 1, 8, 8).astype(np.float32))
    subprocess.run([sys.executable, os.path.join(GRAPHS, "make_ort_qdq.py"), "float.onnx", "ort_residual.onnx", "calib.npy"], check=True)
    xs = rng.rand(5, 1, 1, 8, 8)
    out = {"inputs": [x.ravel().tolist() for x in xs],
           "outputs_qdq_float64": [evaluate("ort_residual.onnx", x).ravel().tolist() for x in xs]}
    with open("samples.json", "w") as f:
        json.dump(out, f)

if __name__ == "__main__":
    main()
