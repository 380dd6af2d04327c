#!/usr/bin/env python3
"""PyTorch GPU peer of `netsmith-gpu-check bench`: the sample projects' LeNet and ResNet layer for
layer (projects/fashion_mnist_{lenet,resnet}.nsproj), Adam as configured there, the same step
(a synthetic batch copied from pinned host memory, forward, cross-entropy, backward, optimizer step,
loss read back), the same warm-up and timing. Prints one JSON line.

    python3 tests/bench/pytorch_gpu_peer.py --model lenet --batch 256 --precision float --mode eager

precision float: float32 everywhere with TF32 off (cuDNN and matmul), as Netsmith's float.
precision bfloat16: torch.autocast(bfloat16) — PyTorch then also keeps activations in bf16, which
Netsmith does not (Note [Precision] in engine/backend/cuda/cuda_device.h): a faster peer.
mode compile: torch.compile(model) (default mode); reported as an error when it fails.
"""
import argparse
import json
import time

import torch
from torch import nn


def lenet():
    return nn.Sequential(
        nn.Conv2d(1, 16, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(800, 512), nn.ReLU(), nn.Linear(512, 10))


class Residual(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(c, c, 3, padding=1), nn.BatchNorm2d(c, eps=1e-5, momentum=0.1), nn.ReLU(),
                                  nn.Conv2d(c, c, 3, padding=1), nn.BatchNorm2d(c, eps=1e-5, momentum=0.1))

    def forward(self, x):
        return torch.relu(self.body(x) + x)


def resnet():
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        Residual(32), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        Residual(64),
        nn.Flatten(), nn.Linear(64 * 7 * 7, 10))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", choices=["lenet", "resnet"], required=True)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--precision", choices=["float", "bfloat16"], default="float")
    ap.add_argument("--mode", choices=["eager", "compile"], default="eager")
    ap.add_argument("--iterations", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    args = ap.parse_args()
    out = {"model": args.model, "batch": args.batch, "precision": args.precision, "mode": args.mode,
           "torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
           "error": ""}
    try:
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        dev = torch.device("cuda:0")
        out["gpu"] = torch.cuda.get_device_name(dev)
        torch.manual_seed(1)
        net = (lenet() if args.model == "lenet" else resnet()).to(dev)
        opt = torch.optim.Adam(net.parameters(), lr=0.001, betas=(0.9, 0.999), eps=1e-8)
        loss_fn = nn.CrossEntropyLoss()
        model = torch.compile(net) if args.mode == "compile" else net
        xs = [torch.rand(args.batch, 1, 28, 28).pin_memory() for _ in range(4)]
        ys = [torch.randint(0, 10, (args.batch,)).pin_memory() for _ in range(4)]

        def step(i):
            x = xs[i % 4].to(dev, non_blocking=True)
            y = ys[i % 4].to(dev, non_blocking=True)
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=args.precision == "bfloat16"):
                loss = loss_fn(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            return loss.item()  # Netsmith reads the loss back every iteration too

        for i in range(args.warmup):
            step(i)
        torch.cuda.synchronize()
        start = time.perf_counter()
        total = 0.0
        for i in range(args.iterations):
            total += step(i)
        torch.cuda.synchronize()
        seconds = time.perf_counter() - start
        out["samples_per_s"] = args.batch * args.iterations / seconds
        out["mean_loss"] = total / args.iterations
    except Exception as e:  # a failed torch.compile is a result to print, not a crash
        out["error"] = f"{type(e).__name__}: {e}"[:500]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
