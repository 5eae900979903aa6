"""Malformed or unsupported QDQ graphs for qdq_test.go: /usr/bin/python3 gen_bad.py (python3-onnx)."""
import os
import numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto as T

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bad")

def save(name, nodes, inits, out_type=T.FLOAT, check=True):
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", T.FLOAT, ["N", 2])],
                          [helper.make_tensor_value_info("y", out_type, ["N", 2])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    if check:
        onnx.checker.check_model(m)
    onnx.save(m, os.path.join(HERE, name + ".onnx"))

def qdq(scale, zero):
    return ([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])],
            [numpy_helper.from_array(np.array(scale, np.float32), "s"), zero])

nodes, inits = qdq(0.0, numpy_helper.from_array(np.array(3, np.uint8), "z"))
save("zero_scale", nodes, inits)
nodes, inits = qdq(-0.5, numpy_helper.from_array(np.array(3, np.uint8), "z"))
save("negative_scale", nodes, inits)
# a uint8 zero point of 300, stored in int32_data (only a malformed file can hold it)
nodes, inits = qdq(0.5, helper.make_tensor("z", T.UINT8, [], [300]))
save("zero_point_range", nodes, inits, check=False)
# an integer-kernel operator
w = numpy_helper.from_array(np.ones((2, 2), np.int8), "w")
one = numpy_helper.from_array(np.array(1.0, np.float32), "one")
z8 = numpy_helper.from_array(np.array(0, np.uint8), "z8")
zi8 = numpy_helper.from_array(np.array(0, np.int8), "zi8")
nodes = [helper.make_node("QuantizeLinear", ["x", "one", "z8"], ["q"]),
         helper.make_node("QLinearMatMul", ["q", "one", "z8", "w", "one", "zi8", "one", "z8"], ["qy"]),
         helper.make_node("DequantizeLinear", ["qy", "one", "z8"], ["y"])]
save("qlinearmatmul", nodes, [w, one, z8, zi8])
