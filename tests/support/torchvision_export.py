#!/usr/bin/env python3
"""Exports a torchvision model with random weights to ONNX for tst_torchvision_import.

usage: torchvision_export.py MODEL SIZE OUT_DIR [OPSET [BATCH]]
Writes, with TAG = MODEL-opsetOPSET (OPSET default 13, BATCH default 2): OUT_DIR/TAG.onnx (eval
mode, batch axis dynamic), OUT_DIR/TAG-x.npy (BATCH, 3, SIZE, SIZE) inputs, OUT_DIR/TAG-torch.npy,
PyTorch's own outputs, and with onnxruntime importable OUT_DIR/TAG-ort.npy, onnxruntime's outputs
of the exported file. The last line printed says which onnxruntime ran, or that it is not
importable (then the test says what it compared with PyTorch only). Exit status 77: torch,
torchvision or numpy is missing (the test skips with this message).
"""
import sys
import time

try:
    import numpy as np
    import torch
    import torchvision
except ImportError as e:  # the test skips, naming the module
    print(f"missing Python module: {e.name} (Debian: python3-torch, python3-torchvision, python3-numpy)")
    sys.exit(77)

BUILDERS = {
    "resnet18": lambda: torchvision.models.resnet18(),
    "mobilenet_v2": lambda: torchvision.models.mobilenet_v2(),
    "squeezenet1_1": lambda: torchvision.models.squeezenet1_1(),
    "vgg11": lambda: torchvision.models.vgg11(),
    "vgg11_bn": lambda: torchvision.models.vgg11_bn(),
    "densenet121": lambda: torchvision.models.densenet121(),
    "shufflenet_v2_x1_0": lambda: torchvision.models.shufflenet_v2_x1_0(),
}


def main():
    name, size, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    opset = int(sys.argv[4]) if len(sys.argv) > 4 else 13
    batch = int(sys.argv[5]) if len(sys.argv) > 5 else 2
    tag = f"{out}/{name}-opset{opset}"
    started = time.time()
    torch.manual_seed(0)
    torch.set_num_threads(2)
    model = BUILDERS[name]().eval()
    # Random BatchNormalization statistics too, so folding them is checked, not skipped.
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
    x = torch.rand(batch, 3, size, size)
    with torch.no_grad():
        y = model(x)
    path = f"{tag}.onnx"
    torch.onnx.export(model, x, path, opset_version=opset, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "N"}, "y": {0: "N"}})
    np.save(f"{tag}-x.npy", x.numpy())
    np.save(f"{tag}-torch.npy", y.numpy())
    del model
    print(f"exported by PyTorch {torch.__version__} at opset {opset} in {time.time() - started:.1f} s")
    try:
        import onnxruntime
    except ImportError as e:
        print(f"onnxruntime is not importable by {sys.executable} ({e})")
        return
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    np.save(f"{tag}-ort.npy", session.run(None, {"x": x.numpy()})[0])
    print(f"onnxruntime {onnxruntime.__version__} (numpy {np.__version__}) ran it")


if __name__ == "__main__":
    main()
