#!/usr/bin/env python3
"""ONNX models at other opsets for tst_onnx_import.

  onnx_opsets.py convert IN.onnx OUT.onnx OPSET
      Rewrites IN at OPSET, so the same model shows each operator's form at that opset: upwards with
      onnx.version_converter (Debian's python3-onnx), from 13 down to 11 by downgrade_13_to_11
      (Squeeze, Unsqueeze, Split, Dropout attributes; Softmax's axis). onnx.checker checks the
      result. Prints the op types and their count.
  onnx_opsets.py handmade DIR
      Writes DIR/NAME.onnx for small models made with onnx.helper, each with DIR/NAME-x.npy (its
      input), DIR/NAME-torch.npy (the same computation by PyTorch's functions, the reference) and,
      with onnxruntime importable, DIR/NAME-ort.npy:
        resize_split_opset18: ReduceMean with axes as an input, Resize linear (pytorch_half_pixel,
          by scales) and nearest (asymmetric, floor), a Transpose of per-sample axes and Split by
          num_outputs (5 channels into 3 + 2), Concat: opset 18's forms (onnx 1.12 cannot check
          opset 18, so onnx.checker is not run on it; onnxruntime runs it).
        resize_split_opset11: the same at opset 11 (ReduceMean axes and Split sizes as attributes,
          Resize with roi and scales), plus a Slice with a step.
        transpose_batch_opset13: a Transpose that moves the batch axis (perm 1, 0, 2, 3), which
          Netsmith refuses (no reference outputs).
        tf_style_opset13: what tf2onnx writes for a Keras CNN: an NHWC input and a Transpose, a
          strided Conv with TensorFlow's SAME padding as asymmetric pads, a BatchNormalization as
          Mul and Add by per-channel constants, an explicit asymmetric Pad, and a Conv with
          auto_pad SAME_UPPER that pads one more column after than before.
      The last line printed says whether onnxruntime ran. Exit 77: onnx, numpy or torch missing.
"""
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto
    from onnx import helper as h
except ImportError as e:
    print(f"missing Python module: {e.name} (Debian: python3-onnx, python3-numpy)")
    sys.exit(77)


def constant_ints(model, name):
    from onnx import numpy_helper
    for t in model.graph.initializer:
        if t.name == name:
            return [int(v) for v in numpy_helper.to_array(t).reshape(-1)]
    for n in model.graph.node:
        if n.op_type == "Constant" and n.output[0] == name:
            return [int(v) for v in numpy_helper.to_array(n.attribute[0].t).reshape(-1)]
    raise SystemExit(f"{name} is not a constant")


def downgrade_13_to_11(model):
    """onnx 1.12's version_converter has no 13 -> 11 adapters for most operators (Flatten, Gemm,
    ...), whose forms did not change: this rewrites the ones that did, and the opset number.
    Squeeze, Unsqueeze: axes input -> attribute; Split: split input -> attribute; Dropout: ratio
    input -> attribute; Softmax: axis explicit, and over an axis that is not the last (opset 11
    flattens the axes from it on) between two Transposes that make it the last."""
    inferred = onnx.shape_inference.infer_shapes(model)
    ranks = {v.name: len(v.type.tensor_type.shape.dim)
             for v in list(inferred.graph.value_info) + list(inferred.graph.input) + list(inferred.graph.output)}
    nodes = []
    for n in model.graph.node:
        if n.op_type in ("Squeeze", "Unsqueeze", "Split", "Dropout") and len(n.input) > 1 and n.input[1]:
            values = constant_ints(model, n.input[1]) if n.op_type != "Dropout" else None
            if n.op_type == "Dropout":
                from onnx import numpy_helper
                ratio = [numpy_helper.to_array(t) for t in model.graph.initializer if t.name == n.input[1]]
                n.attribute.append(h.make_attribute("ratio", float(ratio[0]) if ratio else 0.5))
                del n.input[1:]
            else:
                n.attribute.append(h.make_attribute("split" if n.op_type == "Split" else "axes", values))
                del n.input[1]
        if n.op_type in ("Softmax", "LogSoftmax"):
            rank = ranks[n.input[0]]
            axis = next((a.i for a in n.attribute if a.name == "axis"), -1)
            axis = axis + rank if axis < 0 else axis
            del n.attribute[:]
            n.attribute.append(h.make_attribute("axis", rank - 1))
            if axis != rank - 1:
                perm = list(range(rank))
                perm[axis], perm[-1] = perm[-1], perm[axis]
                before, after = n.input[0] + "_to_last", n.output[0] + "_from_last"
                nodes.append(h.make_node("Transpose", [n.input[0]], [before], name=n.name + "_to_last", perm=perm))
                out = n.output[0]
                n.input[0], n.output[0] = before, after
                nodes.append(n)
                nodes.append(h.make_node("Transpose", [after], [out], name=n.name + "_from_last", perm=perm))
                continue
        nodes.append(n)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    for o in model.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = 11
    return model


def convert(src, dst, opset):
    from onnx import version_converter
    opset = int(opset)
    model = onnx.load(src)
    current = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    if current == 13 and opset == 11:
        model = downgrade_13_to_11(model)
    else:
        model = version_converter.convert_version(model, opset)
    onnx.checker.check_model(model)
    onnx.save(model, dst)
    ops = {}
    for n in model.graph.node:
        ops[n.op_type] = ops.get(n.op_type, 0) + 1
    print(f"opset {opset}: " + ", ".join(f"{k} {v}" for k, v in sorted(ops.items())))
    return 0


def ints(name, values):
    return h.make_tensor(name, TensorProto.INT64, [len(values)], values)


def floats(name, values):
    return h.make_tensor(name, TensorProto.FLOAT, [len(values)], values)


def resize_split(opset):
    """x (N, 4, 6, 6) -> y (N, 12, 12, 5)."""
    nodes, inits = [], []
    if opset >= 18:
        inits.append(ints("mean_axes", [1]))
        nodes.append(h.make_node("ReduceMean", ["x", "mean_axes"], ["m"], keepdims=1))
    else:
        nodes.append(h.make_node("ReduceMean", ["x"], ["m"], axes=[1], keepdims=1))
    inits += [floats("roi", []), floats("scales", [1, 1, 2, 2])]
    nodes.append(h.make_node("Resize", ["m", "roi", "scales"], ["up_linear"], mode="linear",
                             coordinate_transformation_mode="pytorch_half_pixel"))
    nodes.append(h.make_node("Resize", ["x", "roi", "scales"], ["up_nearest"], mode="nearest",
                             coordinate_transformation_mode="asymmetric", nearest_mode="floor"))
    nodes.append(h.make_node("Concat", ["up_linear", "up_nearest"], ["c"], axis=1))
    nodes.append(h.make_node("Transpose", ["c"], ["t"], perm=[0, 2, 3, 1]))
    if opset >= 18:
        nodes.append(h.make_node("Split", ["t"], ["s0", "s1"], axis=3, num_outputs=2))
    elif opset >= 13:
        inits.append(ints("split", [3, 2]))
        nodes.append(h.make_node("Split", ["t", "split"], ["s0", "s1"], axis=3))
    else:
        nodes.append(h.make_node("Split", ["t"], ["s0", "s1"], axis=3, split=[3, 2]))
    last = "s0"
    if opset < 18:
        # rows 1, 3, 5, ... of s0 then back to 12 rows by Concat with itself.
        inits += [ints("starts", [1]), ints("ends", [2 ** 62]), ints("axes", [1]), ints("steps", [2])]
        nodes.append(h.make_node("Slice", ["s0", "starts", "ends", "axes", "steps"], ["odd"]))
        nodes.append(h.make_node("Concat", ["odd", "odd"], ["s0b"], axis=1))
        last = "s0b"
    nodes.append(h.make_node("Concat", ["s1", last], ["y"], axis=3))
    graph = h.make_graph(nodes, f"resize_split_opset{opset}",
                         [h.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4, 6, 6])],
                         [h.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 12, 12, 5])], inits)
    return h.make_model(graph, opset_imports=[h.make_opsetid("", opset)], producer_name="onnx_opsets.py")


def resize_split_reference(x, opset):
    import torch
    import torch.nn.functional as F
    t = torch.from_numpy(x)
    m = t.mean(dim=1, keepdim=True)
    up_linear = F.interpolate(m, scale_factor=2, mode="bilinear", align_corners=False)
    up_nearest = F.interpolate(t, scale_factor=2, mode="nearest")
    c = torch.cat([up_linear, up_nearest], 1).permute(0, 2, 3, 1)
    s0, s1 = c[..., :3], c[..., 3:]
    if opset < 18:
        odd = s0[:, 1::2]
        s0 = torch.cat([odd, odd], 1)
    return torch.cat([s1, s0], 3).numpy()


def transpose_batch():
    nodes = [h.make_node("Transpose", ["x"], ["y"], perm=[1, 0, 2, 3])]
    graph = h.make_graph(nodes, "transpose_batch",
                         [h.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4, 6, 6])],
                         [h.make_tensor_value_info("y", TensorProto.FLOAT, [4, "N", 6, 6])])
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 13)], producer_name="onnx_opsets.py")


def tf_style(rng):
    """x (N, 9, 9, 3) NHWC -> y (N, 45)."""
    w1 = rng.standard_normal((4, 3, 3, 3)).astype(np.float32) * 0.3
    b1 = rng.standard_normal(4).astype(np.float32) * 0.1
    scale = rng.uniform(0.5, 1.5, (1, 4, 1, 1)).astype(np.float32)
    shift = rng.standard_normal((1, 4, 1, 1)).astype(np.float32) * 0.1
    w2 = rng.standard_normal((5, 4, 3, 3)).astype(np.float32) * 0.3
    from onnx import numpy_helper as nh
    inits = [nh.from_array(w1, "w1"), nh.from_array(b1, "b1"), nh.from_array(scale, "scale"),
             nh.from_array(shift, "shift"), nh.from_array(w2, "w2"),
             nh.from_array(np.array([0, 0, 1, 2, 0, 0, 1, 0], np.int64), "pads")]
    nodes = [h.make_node("Transpose", ["x"], ["t"], perm=[0, 3, 1, 2]),
             h.make_node("Conv", ["t", "w1", "b1"], ["c1"], strides=[2, 2], pads=[0, 0, 1, 1]),
             h.make_node("Mul", ["c1", "scale"], ["bn_mul"]),
             h.make_node("Add", ["bn_mul", "shift"], ["bn"]),
             h.make_node("Relu", ["bn"], ["r"]),
             h.make_node("Pad", ["r", "pads"], ["p"], mode="constant"),
             h.make_node("Conv", ["p", "w2"], ["c2"], strides=[2, 2], auto_pad="SAME_UPPER", kernel_shape=[3, 3]),
             h.make_node("Flatten", ["c2"], ["y"], axis=1)]
    graph = h.make_graph(nodes, "tf_style",
                         [h.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 9, 9, 3])],
                         [h.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 45])], inits)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)], producer_name="onnx_opsets.py")

    def reference(x):
        import torch
        import torch.nn.functional as F
        t = torch.from_numpy(x).permute(0, 3, 1, 2)
        c1 = F.conv2d(F.pad(t, (0, 1, 0, 1)), torch.from_numpy(w1), torch.from_numpy(b1), stride=2)
        r = torch.relu(c1 * torch.from_numpy(scale) + torch.from_numpy(shift))
        p = F.pad(r, (2, 0, 1, 1))  # (left, right, top, bottom)
        c2 = F.conv2d(F.pad(p, (0, 1, 0, 1)), torch.from_numpy(w2), stride=2)  # SAME_UPPER: 6 -> 3
        return c2.flatten(1).numpy()
    return model, reference


def handmade(out):
    try:
        import torch  # noqa: F401 (the reference)
    except ImportError as e:
        print(f"missing Python module: {e.name} (Debian: python3-torch)")
        return 77
    try:
        import onnxruntime
        ort = f"onnxruntime {onnxruntime.__version__} ran them"
    except ImportError as e:
        onnxruntime = None
        ort = f"onnxruntime is not importable by {sys.executable} ({e})"
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 4, 6, 6)).astype(np.float32)
    for opset in (18, 11):
        name = f"resize_split_opset{opset}"
        model = resize_split(opset)
        if opset <= onnx.defs.onnx_opset_version():
            onnx.checker.check_model(model)
        onnx.save(model, f"{out}/{name}.onnx")
        np.save(f"{out}/{name}-x.npy", x)
        np.save(f"{out}/{name}-torch.npy", resize_split_reference(x, opset))
        if onnxruntime:
            session = onnxruntime.InferenceSession(f"{out}/{name}.onnx", providers=["CPUExecutionProvider"])
            np.save(f"{out}/{name}-ort.npy", session.run(None, {"x": x})[0])
    onnx.save(transpose_batch(), f"{out}/transpose_batch_opset13.onnx")
    model, reference = tf_style(rng)
    onnx.checker.check_model(model)
    onnx.save(model, f"{out}/tf_style_opset13.onnx")
    x = rng.standard_normal((2, 9, 9, 3)).astype(np.float32)
    np.save(f"{out}/tf_style_opset13-x.npy", x)
    np.save(f"{out}/tf_style_opset13-torch.npy", reference(x))
    if onnxruntime:
        session = onnxruntime.InferenceSession(f"{out}/tf_style_opset13.onnx", providers=["CPUExecutionProvider"])
        np.save(f"{out}/tf_style_opset13-ort.npy", session.run(None, {"x": x})[0])
    print(ort)
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "convert":
        sys.exit(convert(*sys.argv[2:]))
    if len(sys.argv) == 3 and sys.argv[1] == "handmade":
        sys.exit(handmade(sys.argv[2]))
    print(__doc__)
    sys.exit(2)
