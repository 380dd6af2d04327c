#!/usr/bin/env python3
"""Exports a torchvision model with random weights to ONNX for tst_torchvision_import.

usage: torchvision_export.py MODEL SIZE OUT_DIR
Writes OUT_DIR/MODEL.onnx (opset 13, eval mode, batch axis dynamic), OUT_DIR/MODEL-x.npy (2, 3, SIZE,
SIZE) inputs and OUT_DIR/MODEL-torch.npy, PyTorch's own outputs, and with onnxruntime importable
OUT_DIR/MODEL-ort.npy. Exit status 77: a module is missing (the test skips with this message).
"""
import sys

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
    "densenet121": lambda: torchvision.models.densenet121(),
    "shufflenet_v2_x1_0": lambda: torchvision.models.shufflenet_v2_x1_0(),
}


def main():
    name, size, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    torch.manual_seed(0)
    torch.set_num_threads(2)
    model = BUILDERS[name]().eval()
    # Random BatchNormalization statistics too, so folding them is checked, not skipped.
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
    x = torch.rand(2, 3, size, size)
    with torch.no_grad():
        y = model(x)
    path = f"{out}/{name}.onnx"
    torch.onnx.export(model, x, path, opset_version=13, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "N"}, "y": {0: "N"}})
    np.save(f"{out}/{name}-x.npy", x.numpy())
    np.save(f"{out}/{name}-torch.npy", y.numpy())
    try:
        import onnxruntime
        session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
        np.save(f"{out}/{name}-ort.npy", session.run(None, {"x": x.numpy()})[0])
        print(f"onnxruntime {onnxruntime.__version__}")
    except ImportError:
        print("onnxruntime not importable: compared with PyTorch only")


if __name__ == "__main__":
    main()
