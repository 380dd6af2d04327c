#!/usr/bin/python3
"""Checks exported ONNX models for tst_onnx_export.

  onnx_compare.py check MODEL.onnx
      onnx.checker.check_model (full check, with shape inference); exit 0 when it passes.
  onnx_compare.py metadata MODEL.onnx
      Prints the model's metadata_props as one JSON object (key: value, ASCII with escapes).
  onnx_compare.py compare MODEL.onnx IMAGES_IDX_GZ COUNT SCALE NETSMITH_CSV TOLERANCE
      Runs the first COUNT images of the IDX file (x SCALE) through onnxruntime and compares the
      output with the values `netsmith-cli infer` wrote to NETSMITH_CSV; prints the largest
      absolute difference. Exit 0 within TOLERANCE, 1 beyond, 77 when onnxruntime is missing.
"""
import csv
import gzip
import struct
import sys


def check(model_path):
    import onnx
    model = onnx.load(model_path)
    onnx.checker.check_model(model, full_check=True)
    opsets = ",".join(str(o.version) for o in model.opset_import)
    print(f"checked {model_path}: opset {opsets}, {len(model.graph.node)} nodes, "
          f"{len(model.graph.initializer)} initializers")
    return 0


def metadata(model_path):
    import json
    import onnx
    model = onnx.load(model_path)
    print(json.dumps({p.key: p.value for p in model.metadata_props}))
    return 0


def read_idx_images(path, count):
    import numpy as np
    with gzip.open(path, "rb") as f:
        magic = struct.unpack(">I", f.read(4))[0]
        rank = magic & 0xFF
        dims = struct.unpack(">" + "I" * rank, f.read(4 * rank))
        per = 1
        for d in dims[1:]:
            per *= d
        data = np.frombuffer(f.read(count * per), dtype=np.uint8)
    return data.reshape(count, per)


def compare(model_path, images, count, scale, netsmith_csv, tolerance):
    try:
        import onnxruntime as ort
    except ImportError as e:
        print(f"onnxruntime is not importable ({e}): output comparison skipped")
        return 77
    import numpy as np
    count = int(count)
    session = ort.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    inp = session.get_inputs()[0]
    shape = [count] + [int(d) for d in inp.shape[1:]]
    x = (read_idx_images(images, count).astype(np.float32) * np.float32(float(scale))).reshape(shape)
    y = session.run(None, {inp.name: x})[0].reshape(count, -1).astype(np.float64)
    with open(netsmith_csv, newline="") as f:
        rows = list(csv.reader(f))
    # input,class,class_name,likelihood_0,... (a classifier) or input,y_0,...: the values start at
    # the first likelihood_ / y_ column.
    skip = next(i for i, h in enumerate(rows[0]) if h.startswith("likelihood_") or h.startswith("y_"))
    ours = np.array([[float(v) for v in r[skip:]] for r in rows[1:]], dtype=np.float64)
    if ours.shape != y.shape:
        print(f"shape mismatch: onnxruntime {y.shape}, netsmith {ours.shape}")
        return 1
    diff = float(np.max(np.abs(ours - y)))
    agree = ""
    if rows[0][1] == "class":
        agree = f", same class for {int(np.sum(ours.argmax(1) == y.argmax(1)))}/{count}"
    print(f"max_abs_diff={diff:.3g} over {count} samples x {y.shape[1]} outputs "
          f"(onnxruntime {ort.__version__}{agree})")
    return 0 if diff <= float(tolerance) else 1


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2]))
    if len(sys.argv) == 3 and sys.argv[1] == "metadata":
        sys.exit(metadata(sys.argv[2]))
    if len(sys.argv) == 8 and sys.argv[1] == "compare":
        sys.exit(compare(*sys.argv[2:]))
    print(__doc__)
    sys.exit(2)
