"""Float64 numpy reference of the ONNX convolution operators nnbound reads
(Conv, AveragePool, GlobalAveragePool, BatchNormalization), written from the
operator specification, for gen.py and cnn/generate.py."""
import numpy as np


def window_pads(a, in_hw, kernel, strides, dil):
    """The pads [h_begin, w_begin, h_end, w_end] of a node's attributes a."""
    auto = a.get("auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else auto
    if auto in ("NOTSET", ""):
        return list(a.get("pads", [0, 0, 0, 0]))
    if auto == "VALID":
        return [0, 0, 0, 0]
    pads = [0, 0, 0, 0]
    for ax in range(2):
        out = -(-in_hw[ax] // strides[ax])
        total = max(0, (out - 1) * strides[ax] + (kernel[ax] - 1) * dil[ax] + 1 - in_hw[ax])
        lo, hi = total // 2, total - total // 2
        if auto == "SAME_LOWER":
            lo, hi = hi, lo
        pads[ax], pads[ax + 2] = lo, hi
    return pads


def _windows(xp, kernel, strides, dil, out):
    """Yield (th, tw, view) with view[..., oh, ow] = xp[..., oh*s0 + th*d0, ow*s1 + tw*d1]."""
    for th in range(kernel[0]):
        for tw in range(kernel[1]):
            h0, w0 = th * dil[0], tw * dil[1]
            yield th, tw, xp[..., h0:h0 + (out[0] - 1) * strides[0] + 1:strides[0],
                             w0:w0 + (out[1] - 1) * strides[1] + 1:strides[1]]


def _geometry(a, x, kernel):
    strides = list(a.get("strides", [1, 1]))
    dil = list(a.get("dilations", [1, 1]))
    pads = window_pads(a, x.shape[2:], kernel, strides, dil)
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    out = [(xp.shape[2 + ax] - ((kernel[ax] - 1) * dil[ax] + 1)) // strides[ax] + 1 for ax in range(2)]
    return strides, dil, pads, xp, out


def conv(a, x, W, B=None):
    """ONNX Conv on x [N,C,H,W] with weight W [M,C/group,kh,kw]."""
    M, Cg, kh, kw = W.shape
    group = a.get("group", 1)
    strides, dil, pads, xp, out = _geometry(a, x, (kh, kw))
    y = np.zeros((x.shape[0], M) + tuple(out))
    for m in range(M):
        g = m // (M // group)
        for c in range(Cg):
            for th, tw, view in _windows(xp[:, g * Cg + c], (kh, kw), strides, dil, out):
                y[:, m] += W[m, c, th, tw] * view
        if B is not None:
            y[:, m] += B[m]
    return y


def average_pool(a, x):
    """ONNX AveragePool on x [N,C,H,W]; with ceil_mode, the windows past the
    end padding read padding, which count_include_pad 0 does not count."""
    kernel = list(a["kernel_shape"])
    strides, dil, pads, xp, out = _geometry(a, x, kernel)
    if a.get("ceil_mode", 0):
        for ax in range(2):
            full = x.shape[2 + ax] + pads[ax] + pads[ax + 2] - ((kernel[ax] - 1) * dil[ax] + 1)
            o = -(-full // strides[ax]) + 1
            if (o - 1) * strides[ax] >= x.shape[2 + ax] + pads[ax]:
                o -= 1
            pads[ax + 2] += (o - out[ax]) * strides[ax]
            out[ax] = o
        xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    ones = np.pad(np.ones(x.shape[2:]), ((pads[0], pads[2]), (pads[1], pads[3])))
    s, cnt = 0.0, 0.0
    for th, tw, view in _windows(xp, kernel, strides, dil, out):
        s = s + view
    for th, tw, view in _windows(ones, kernel, strides, dil, out):
        cnt = cnt + view
    if a.get("count_include_pad", 0):
        cnt = float(kernel[0] * kernel[1])
    return s / cnt


def global_average_pool(x):
    return x.mean(axis=(2, 3), keepdims=True)


def batch_norm(a, x, scale, B, mean, var):
    """ONNX BatchNormalization, inference mode, channel axis 1."""
    eps = np.float64(np.float32(a.get("epsilon", 1e-5)))
    sh = (1, -1) + (1,) * (x.ndim - 2)
    return (x - mean.reshape(sh)) / np.sqrt(var.reshape(sh) + eps) * scale.reshape(sh) + B.reshape(sh)
