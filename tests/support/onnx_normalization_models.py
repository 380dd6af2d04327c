#!/usr/bin/python3
"""Native ONNX normalization models for tst_onnx_import_normalization.

  onnx_normalization_models.py make KIND OUT.onnx
      Writes a small model x (N, 1, 12, 12) -> Conv (4 maps, 3x3, pad 1) -> KIND -> MaxPool 2 ->
      Flatten with fixed pseudo-random weights, where KIND is
        layer     LayerNormalization (opset 17), axis 2: each channel's (12, 12) plane
        layer_all LayerNormalization (opset 17), axis 1, no bias: the whole sample
        instance  InstanceNormalization (opset 13)
        group     GroupNormalization (opset 18), 2 groups, one scale and bias per group
        group_spelled    GroupNormalization spelled out as PyTorch writes it (opset 13): Reshape
                         (N, 2, -1), InstanceNormalization with scale 1 and bias 0, Reshape back to
                         a Shape of the input, Mul by gamma and Add of beta shaped (4, 1, 1)
        instance_grouped the same Reshape and Reshape back around an InstanceNormalization with
                         scale (1.5, 0.5) and bias (0.25, -0.75) and no Mul or Add: not GroupNorm
        group_bad_mul    group_spelled with gamma shaped (1, 1, 12), along the width: not GroupNorm
      Needs only the onnx package (Debian's python3-onnx); no checker runs, since ONNX 1.12 knows
      no opset 18.
  onnx_normalization_models.py run MODEL.onnx IN.npy OUT.npy
      Runs the model with onnxruntime on the float32 inputs; exit 77 when onnxruntime is missing.
"""
import sys


def rand(rng, shape, scale=1.0, offset=0.0):
    import numpy as np
    return (offset + scale * rng.standard_normal(shape)).astype(np.float32)


def make(kind, out):
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(7)
    inits = [numpy_helper.from_array(rand(rng, (4, 1, 3, 3), 0.5), "W"),
             numpy_helper.from_array(rand(rng, (4,), 0.1), "b")]
    nodes = [helper.make_node("Conv", ["x", "W", "b"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])]
    if kind == "layer":
        opset = 17
        inits += [numpy_helper.from_array(rand(rng, (12, 12), 0.3, 1.0), "scale"),
                  numpy_helper.from_array(rand(rng, (12, 12), 0.3), "bias")]
        nodes.append(helper.make_node("LayerNormalization", ["c", "scale", "bias"], ["n"], axis=2, epsilon=1e-5))
    elif kind == "layer_all":
        opset = 17
        inits += [numpy_helper.from_array(rand(rng, (4, 12, 12), 0.3, 1.0), "scale")]
        nodes.append(helper.make_node("LayerNormalization", ["c", "scale"], ["n"], axis=1, epsilon=1e-3))
    elif kind == "instance":
        opset = 13
        inits += [numpy_helper.from_array(rand(rng, (4,), 0.3, 1.0), "scale"),
                  numpy_helper.from_array(rand(rng, (4,), 0.3), "bias")]
        nodes.append(helper.make_node("InstanceNormalization", ["c", "scale", "bias"], ["n"], epsilon=1e-5))
    elif kind == "group":
        opset = 18
        inits += [numpy_helper.from_array(np.array([1.5, 0.5], np.float32), "scale"),
                  numpy_helper.from_array(np.array([0.25, -0.75], np.float32), "bias")]
        nodes.append(helper.make_node("GroupNormalization", ["c", "scale", "bias"], ["n"], num_groups=2, epsilon=1e-5))
    elif kind in ("group_spelled", "instance_grouped", "group_bad_mul"):
        opset = 13
        unit = kind != "instance_grouped"
        inits += [numpy_helper.from_array(np.array([0, 2, -1], np.int64), "groups"),
                  numpy_helper.from_array(np.array([1, 1] if unit else [1.5, 0.5], np.float32), "in_scale"),
                  numpy_helper.from_array(np.array([0, 0] if unit else [0.25, -0.75], np.float32), "in_bias")]
        ungrouped = "u" if unit else "n"
        nodes += [helper.make_node("Reshape", ["c", "groups"], ["g"], name="group"),
                  helper.make_node("InstanceNormalization", ["g", "in_scale", "in_bias"], ["gn"], epsilon=1e-5,
                                   name="normalize"),
                  helper.make_node("Shape", ["c"], ["c_shape"], name="shape"),
                  helper.make_node("Reshape", ["gn", "c_shape"], [ungrouped], name="ungroup")]
        if unit:
            along = (1, 1, 12) if kind == "group_bad_mul" else (4, 1, 1)
            inits += [numpy_helper.from_array(rand(rng, along, 0.3, 1.0), "gamma"),
                      numpy_helper.from_array(rand(rng, (4, 1, 1), 0.3), "beta")]
            nodes += [helper.make_node("Mul", ["u", "gamma"], ["s"], name="scale"),
                      helper.make_node("Add", ["s", "beta"], ["n"], name="shift")]
    else:
        raise SystemExit(f"unknown kind {kind}")
    nodes += [helper.make_node("MaxPool", ["n"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
              helper.make_node("Flatten", ["p"], ["y"], axis=1)]
    graph = helper.make_graph(nodes, kind, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 1, 12, 12])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 144])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="netsmith-test")
    model.ir_version = 8
    onnx.save(model, out)
    return 0


def run(model, inp, out):
    try:
        import onnxruntime as ort
    except ImportError as e:
        print(f"onnxruntime is not importable ({e})")
        return 77
    import numpy as np
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    x = np.load(inp).astype(np.float32)
    np.save(out, session.run(None, {"x": x})[0].astype(np.float32))
    print(f"onnxruntime {ort.__version__}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "make":
        sys.exit(make(sys.argv[2], sys.argv[3]))
    if len(sys.argv) == 5 and sys.argv[1] == "run":
        sys.exit(run(*sys.argv[2:]))
    print(__doc__)
    sys.exit(2)
