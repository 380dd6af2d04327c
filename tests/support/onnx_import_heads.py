#!/usr/bin/env python3
"""ONNX models for the tests of the imported loss and of element-wise ops between layers.

  onnx_import_heads.py heads DIR
      Writes, with onnx.helper (no torch needed), at opset 13:
        DIR/gemm_classifier.onnx: x (N, 8) -> Gemm -> (N, 5) raw scores, as PyTorch's classifiers end;
        DIR/gemm_regression.onnx: x (N, 8) -> Gemm -> (N, 1).
      Exit 77: onnx missing.
  onnx_import_heads.py se DIR
      A small CNN with squeeze-and-excitation blocks, built with torch (random weights, batch
      normalisation statistics set so that they matter) and exported at opset 13 to DIR/se.onnx:
        conv 3x3, BN, ReLU, SE (1x1 convolutions: x * sigmoid(conv(relu(conv(pool(x)))))),
        conv 3x3 stride 2, ReLU, SE (Linear layers on the pooled vector, unsqueezed back to
        (N, C, 1, 1)), h - mean(h over H, W) (Sub by a per-channel map), h / sigmoid(conv 1x1 (h))
        (Div of two maps of one shape) and h / sigmoid(pool(h)) (Div by per-channel values),
        global average pooling, Linear to 10 raw scores.
      Also DIR/se-x.npy (the input, (4, 3, 16, 16)), DIR/se-torch.npy (PyTorch's output, (4, 10))
      and, with onnxruntime importable, DIR/se-ort.npy. The last line printed says whether
      onnxruntime ran. Exit 77: torch, onnx or numpy missing.
"""
import os
import sys


def heads(out):
    try:
        import numpy as np
        import onnx
        from onnx import TensorProto
        from onnx import helper as h
    except ImportError as e:
        print(f"missing Python module: {e.name} (Debian: python3-onnx, python3-numpy)")
        return 77
    rng = np.random.default_rng(1)
    for name, outputs in (("gemm_classifier", 5), ("gemm_regression", 1)):
        w = h.make_tensor("W", TensorProto.FLOAT, [outputs, 8], rng.standard_normal(outputs * 8).astype(np.float32).tolist())
        b = h.make_tensor("B", TensorProto.FLOAT, [outputs], rng.standard_normal(outputs).astype(np.float32).tolist())
        graph = h.make_graph([h.make_node("Gemm", ["x", "W", "B"], ["y"], name="fc", transB=1)], name,
                             [h.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8])],
                             [h.make_tensor_value_info("y", TensorProto.FLOAT, ["N", outputs])], [w, b])
        model = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)], producer_name="onnx_import_heads.py")
        onnx.checker.check_model(model)
        onnx.save(model, os.path.join(out, name + ".onnx"))
    print("wrote gemm_classifier.onnx and gemm_regression.onnx")
    return 0


def se(out):
    try:
        import numpy as np
        import onnx  # noqa: F401  (torch.onnx.export needs it)
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
    except ImportError as e:
        print(f"missing Python module: {e.name} (Debian: python3-torch, python3-onnx, python3-numpy)")
        return 77

    class ConvSE(nn.Module):
        """torchvision's SqueezeExcitation: 1x1 convolutions on the pooled map."""

        def __init__(self, c, r):
            super().__init__()
            self.fc1 = nn.Conv2d(c, c // r, 1)
            self.fc2 = nn.Conv2d(c // r, c, 1)

        def forward(self, x):
            s = F.adaptive_avg_pool2d(x, 1)
            return x * torch.sigmoid(self.fc2(F.relu(self.fc1(s))))

    class LinearSE(nn.Module):
        """SENet's original form: Linear layers on the pooled vector."""

        def __init__(self, c, r):
            super().__init__()
            self.fc1 = nn.Linear(c, c // r)
            self.fc2 = nn.Linear(c // r, c)

        def forward(self, x):
            s = torch.flatten(F.adaptive_avg_pool2d(x, 1), 1)
            s = torch.sigmoid(self.fc2(F.relu(self.fc1(s))))
            return s.unsqueeze(-1).unsqueeze(-1) * x

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
            self.bn1 = nn.BatchNorm2d(8)
            self.se1 = ConvSE(8, 2)
            self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
            self.se2 = LinearSE(16, 4)
            self.gate = nn.Conv2d(16, 16, 1)
            self.fc = nn.Linear(16, 10)

        def forward(self, x):
            h = self.se1(F.relu(self.bn1(self.conv1(x))))
            h = self.se2(F.relu(self.conv2(h)))
            h = h - h.mean(dim=(2, 3), keepdim=True)
            h = h / torch.sigmoid(self.gate(h))
            h = h / torch.sigmoid(F.adaptive_avg_pool2d(h, 1))
            return self.fc(torch.flatten(F.adaptive_avg_pool2d(h, 1), 1))

    torch.manual_seed(7)
    net = Net()
    with torch.no_grad():
        net.bn1.running_mean.uniform_(-0.5, 0.5)
        net.bn1.running_var.uniform_(0.5, 2.0)
    net.eval()
    x = torch.rand(4, 3, 16, 16)
    with torch.no_grad():
        y = net(x)
    path = os.path.join(out, "se.onnx")
    torch.onnx.export(net, x, path, opset_version=13, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "N"}, "y": {0: "N"}})
    np.save(os.path.join(out, "se-x.npy"), x.numpy().astype(np.float32))
    np.save(os.path.join(out, "se-torch.npy"), y.numpy().astype(np.float32))
    print(f"exported by PyTorch {torch.__version__}")
    try:
        import onnxruntime
    except ImportError as e:
        print(f"onnxruntime is not importable by {sys.executable} ({e})")
        return 0
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    (ort,) = session.run(None, {"x": x.numpy()})
    np.save(os.path.join(out, "se-ort.npy"), ort.astype(np.float32))
    print(f"onnxruntime {onnxruntime.__version__} ran it")
    return 0


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("heads", "se"):
        print(__doc__)
        return 2
    return heads(sys.argv[2]) if sys.argv[1] == "heads" else se(sys.argv[2])


if __name__ == "__main__":
    sys.exit(main())
