# Cases of gen.py for Conv, AveragePool, GlobalAveragePool, BatchNormalization
# and residual Add; executed inside gen.py (its helpers and rng are in scope).

good("conv_basic", "Conv 1->2 channels, 3x3, pads 1, bias",
     [N("Conv", ["x", "W", "B"], ["y"], pads=[1, 1, 1, 1])], [tensor("W", w(2, 1, 3, 3)), tensor("B", w(2))],
     ["N", 1, 5, 5], ["N", 2, 5, 5])
good("conv_asym_pads", "Conv 2->3, kernel 3x2, strides [2,1], pads [0,1,2,0], no bias",
     [N("Conv", ["x", "W"], ["y"], pads=[0, 1, 2, 0], strides=[2, 1])], [tensor("W", w(3, 2, 3, 2))],
     ["N", 2, 6, 5], ["N", 3, 3, 5])
good("conv_group_dilation", "Conv 4->6, group 2, dilations [2,1], pads 1, kernel_shape given",
     [N("Conv", ["x", "W", "B"], ["y"], group=2, dilations=[2, 1], pads=[1, 1, 1, 1], kernel_shape=[3, 3])],
     [tensor("W", w(6, 2, 3, 3)), tensor("B", w(6))], ["N", 4, 7, 7], ["N", 6, 5, 7])
good("conv_depthwise", "depthwise Conv 3->3, group 3, strides 2",
     [N("Conv", ["x", "W", "B"], ["y"], group=3, strides=[2, 2])], [tensor("W", w(3, 1, 2, 2)), tensor("B", w(3))],
     ["N", 3, 5, 5], ["N", 3, 2, 2])
for mode in ("SAME_UPPER", "SAME_LOWER", "VALID"):
    good("conv_" + mode.lower(), "Conv auto_pad %s, kernel 2x4, strides [2,3]" % mode,
         [N("Conv", ["x", "W", "B"], ["y"], auto_pad=mode, strides=[2, 3])],
         [tensor("W", w(2, 1, 2, 4)), tensor("B", w(2))], ["N", 1, 5, 7],
         ["N", 2, 3, 3] if mode != "VALID" else ["N", 2, 2, 2])
good("conv_no_batch", "Conv on [1,1,4,4] (no batch axis), then Relu",
     [N("Conv", ["x", "W"], ["h"], pads=[1, 1, 1, 1]), N("Relu", ["h"], ["y"])], [tensor("W", w(2, 1, 3, 3))],
     [1, 1, 4, 4], [1, 2, 4, 4], acts=["relu"])
bn = [tensor("s", w(2)), tensor("bb", w(2)), tensor("mu", w(2)), tensor("var", rng.uniform(0.5, 2, 2))]
good("conv_bn_relu", "Conv -> BatchNormalization (eps 1e-3) -> Relu -> Flatten -> Gemm: two layers",
     [N("Conv", ["x", "W", "B"], ["c"], pads=[1, 1, 1, 1]),
      N("BatchNormalization", ["c", "s", "bb", "mu", "var"], ["n"], epsilon=1e-3),
      N("Relu", ["n"], ["r"]), N("Flatten", ["r"], ["f"]), N("Gemm", ["f", "G"], ["y"], transB=1)],
     [tensor("W", w(2, 1, 3, 3)), tensor("B", w(2)), tensor("G", w(3, 32))] + bn,
     ["N", 1, 4, 4], ["N", 3], acts=["relu", "identity"])
good("bn_first", "BatchNormalization on the input, then Flatten",
     [N("BatchNormalization", ["x", "s", "bb", "mu", "var"], ["n"]), N("Flatten", ["n"], ["y"])], bn,
     ["N", 2, 2, 3], ["N", 12])
good("avgpool_pads", "AveragePool 3x3, strides 2, pads 1 (count_include_pad 0)",
     [N("AveragePool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])], [],
     ["N", 2, 5, 6], ["N", 2, 3, 3])
good("avgpool_include_pad", "AveragePool 3x2, pads [1,0,0,1], count_include_pad 1",
     [N("AveragePool", ["x"], ["y"], kernel_shape=[3, 2], pads=[1, 0, 0, 1], count_include_pad=1)], [],
     ["N", 1, 4, 4], ["N", 1, 3, 4])
good("avgpool_ceil_exact", "AveragePool 2x2 strides 2 with ceil_mode 1 on an even input",
     [N("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)], [],
     ["N", 1, 4, 4], ["N", 1, 2, 2])
good("global_avgpool", "GlobalAveragePool then Flatten",
     [N("GlobalAveragePool", ["x"], ["g"]), N("Flatten", ["g"], ["y"])], [], ["N", 3, 3, 4], ["N", 3])
res = [tensor("W1", w(2, 2, 3, 3)), tensor("B1", w(2)), tensor("W2", w(2, 2, 3, 3)), tensor("B2", w(2))]
good("residual_block", "x -> Add(x, Conv(Relu(Conv(x)))) -> Relu",
     [N("Conv", ["x", "W1", "B1"], ["a"], pads=[1, 1, 1, 1]), N("Relu", ["a"], ["r"]),
      N("Conv", ["r", "W2", "B2"], ["c"], pads=[1, 1, 1, 1]), N("Add", ["x", "c"], ["s"]), N("Relu", ["s"], ["y"])],
     res, ["N", 2, 3, 3], ["N", 2, 3, 3], chain=False)
good("residual_affine", "Add(Conv(x), x), the branch affine",
     [N("Conv", ["x", "W1", "B1"], ["c"], pads=[1, 1, 1, 1]), N("Add", ["c", "x"], ["y"])],
     res[:2], ["N", 2, 3, 3], ["N", 2, 3, 3], chain=False)
good("residual_after_relu", "Conv -> Relu -> h; Add(h, Conv(Relu(Conv(h)))), Relu inside and after",
     [N("Conv", ["x", "W1", "B1"], ["a"], pads=[1, 1, 1, 1]), N("Relu", ["a"], ["h"]),
      N("Conv", ["h", "W2", "B2"], ["b"], pads=[1, 1, 1, 1]), N("Relu", ["b"], ["r"]),
      N("Conv", ["r", "W1", "B1"], ["c"], pads=[1, 1, 1, 1]), N("Relu", ["c"], ["d"]),
      N("Add", ["h", "d"], ["y"])],
     res, ["N", 2, 3, 3], ["N", 2, 3, 3], chain=False)
bad("bad_maxpool", "MaxPool is a graph node, no chain layer", "ErrNotChain",
    [N("MaxPool", ["x"], ["y"], kernel_shape=[2, 2])], [], ["N", 1, 4, 4], ["N", 1, 3, 3])
bad("bad_pool_oversize", "AveragePool 2x2 on 16x256x256: a chain would need a dense matrix of 2^38 entries",
    "ErrNotChain", [N("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2])], [],
    ["N", 16, 256, 256], ["N", 16, 128, 128])
bad("bad_conv_1d", "a 1-D Conv", "ErrUnsupportedOp",
    [N("Conv", ["x", "W"], ["y"])], [tensor("W", w(2, 1, 3))], ["N", 1, 5], ["N", 2, 3])
good("bad_avgpool_ceil", "AveragePool with ceil_mode 1 and a window past the input (count_include_pad 0)",
     [N("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)], [],
     ["N", 1, 5, 5], ["N", 1, 3, 3], x=rng_graph.uniform(-2, 2, (5, 1, 5, 5)))
good("bad_residual_tanh", "a residual branch with Tanh (a graph)",
     [N("Conv", ["x", "W1"], ["a"], pads=[1, 1, 1, 1]), N("Tanh", ["a"], ["t"]),
      N("Conv", ["t", "W2"], ["c"], pads=[1, 1, 1, 1]), N("Add", ["x", "c"], ["y"])],
     res, ["N", 2, 3, 3], ["N", 2, 3, 3], chain=False, x=rng_graph.uniform(-2, 2, (5, 2, 3, 3)))
good("bad_two_branches", "Add(Conv(x), Conv(x)) (a graph)",
     [N("Conv", ["x", "W1"], ["a"], pads=[1, 1, 1, 1]), N("Conv", ["x", "W2"], ["c"], pads=[1, 1, 1, 1]),
      N("Add", ["a", "c"], ["y"])],
     res, ["N", 2, 3, 3], ["N", 2, 3, 3], chain=False, x=rng_graph.uniform(-2, 2, (5, 2, 3, 3)))
good("conv_reshape_flat", "Conv -> Relu -> Reshape [0,-1] -> Gemm (Reshape to flat, as some exporters write Flatten)",
     [N("Conv", ["x", "W"], ["c"], strides=[2, 2]), N("Relu", ["c"], ["r"]), N("Reshape", ["r", "s"], ["f"]),
      N("Gemm", ["f", "G"], ["y"], transB=1)],
     [tensor("W", w(3, 2, 2, 2)), itensor("s", [0, -1]), tensor("G", w(2, 12))], ["N", 2, 4, 5], ["N", 2],
     acts=["relu", "identity"])
