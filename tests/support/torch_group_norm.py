#!/usr/bin/python3
"""PyTorch nn.GroupNorm models for tst_onnx_import_normalization.

  torch_group_norm.py OPSET AFFINE EPS IN.npy OUT.onnx OUT.npy
      Builds x (N, 1, 12, 12) -> Conv2d(1, 6, 3, padding 1) -> GroupNorm(3 groups of 2 channels,
      eps EPS, affine when AFFINE is 1: its weight and bias drawn at random, not 1 and 0) ->
      Flatten with fixed pseudo-random weights, exports it with torch.onnx at OPSET (the batch axis
      dynamic: PyTorch 1.13 writes Reshape, InstanceNormalization, Shape, Reshape, Mul, Add), and
      writes PyTorch's outputs for the float32 inputs IN.npy to OUT.npy. Exit 77 when torch is
      missing.
"""
import sys


def main(opset, affine, eps, inp, model_path, out):
    try:
        import torch
    except ImportError as e:
        print(f"torch is not importable ({e})")
        return 77
    import numpy as np
    torch.manual_seed(11)
    model = torch.nn.Sequential(torch.nn.Conv2d(1, 6, 3, padding=1),
                                torch.nn.GroupNorm(3, 6, eps=eps, affine=affine),
                                torch.nn.Flatten())
    if affine:
        with torch.no_grad():
            model[1].weight.copy_(1.0 + 0.5 * torch.randn(6))
            model[1].bias.copy_(0.5 * torch.randn(6))
    model.eval()
    x = torch.from_numpy(np.load(inp).astype(np.float32))
    torch.onnx.export(model, x, model_path, opset_version=opset, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "N"}, "y": {0: "N"}})
    with torch.no_grad():
        np.save(out, model(x).numpy().astype(np.float32))
    print(f"torch {torch.__version__}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 7:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(int(sys.argv[1]), sys.argv[2] == "1", float(sys.argv[3]), *sys.argv[4:]))
