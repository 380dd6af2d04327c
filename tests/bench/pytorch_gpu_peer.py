#!/usr/bin/env python3
"""PyTorch GPU peer of `netsmith-gpu-check bench`: the same network, optimizer and step (a synthetic
batch copied from pinned host memory, forward, cross-entropy, backward, optimizer step, loss read
back), the same warm-up and timing. Prints one JSON line.

    python3 tests/bench/pytorch_gpu_peer.py --model lenet --batch 256 --precision float --mode eager
    python3 tests/bench/pytorch_gpu_peer.py --model resnet18 --models-dir DIR --batch 256 --mode expert

Models: the sample projects' LeNet and ResNet layer for layer (projects/fashion_mnist_{lenet,resnet}.nsproj),
Adam as configured there; torchvision's resnet18, resnet50 and mobilenet_v2 with the benchmark
weights of DIR/NAME.map.json (Note [Benchmark weights], export_torchvision_models.py) and the
optimizer of DIR/NAME.nsproj (Momentum there: SGD(momentum=...) here, the same update).

precision float: float32 everywhere with TF32 off (cuDNN and matmul), as Netsmith's float.
precision bfloat16: torch.autocast(bfloat16) — PyTorch then also keeps activations in bf16, which
Netsmith does not (Note [Precision] in engine/backend/cuda/cuda_device.h): a faster peer.
mode eager: the model as it is, PyTorch's defaults (cudnn.benchmark off).
mode compile: torch.compile(model) (default mode).
mode expert: what an expert would run: torch.compile(model) (default mode), channels_last model and
inputs, cudnn.benchmark on, the fused SGD/Adam step where this PyTorch has one; autocast(bfloat16)
in bfloat16 rows, TF32 still off in float rows. `--no-compile` leaves torch.compile out (the CPU
smoke run of run_gpu_benchmark.sh; "compiled": false in the output).
A failed torch.compile is reported as the row's error, not a crash.
For the torchvision models "check_loss" is the untrained network's inference loss on the check
batch that netsmith-gpu-check computes too (Note [Check batch], tests/gpu/gpu_check.cpp), in
float32 whatever the row's precision: equal on both sides when they start from the same network.
"""
import argparse
import json
import os
import sys
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


def check_batch(batch, shape, classes):
    """Note [Check batch]: x[i] = ((i * 7919) mod 1009) / 1009 over the flat index, y[n] = 37 n mod classes."""
    n = batch * shape[0] * shape[1] * shape[2]
    x = ((torch.arange(n, dtype=torch.int64) * 7919) % 1009).to(torch.float64) / 1009.0
    y = (torch.arange(batch, dtype=torch.int64) * 37) % classes
    return x.to(torch.float32).reshape(batch, *shape), y


def torchvision_model(name, models_dir, dev):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from export_torchvision_models import benchmark_model
    net, m = benchmark_model(os.path.join(models_dir, f"{name}.map.json"), dev)
    with open(os.path.join(models_dir, f"{name}.nsproj")) as f:
        o = json.load(f)["optimizer"]
    return net, m["input"], m["classes"], o


def make_optimizer(o, params, fused):
    extra = {"fused": True} if fused else {}
    if o["solver"] in ("Momentum", "Sgd"):
        mu = o.get("momentum", 0.9) if o["solver"] == "Momentum" else 0.0
        return torch.optim.SGD(params, lr=o.get("lr", 0.01), momentum=mu, weight_decay=o.get("weight_decay", 0), **extra)
    if o["solver"] == "Adam":
        return torch.optim.Adam(params, lr=o.get("alpha", 0.001), betas=(o.get("beta1", 0.9), o.get("beta2", 0.999)),
                                eps=o.get("eps", 1e-8), weight_decay=o.get("weight_decay", 0), **extra)
    raise ValueError(f"solver {o['solver']}: no PyTorch counterpart here")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", choices=["lenet", "resnet", "resnet18", "resnet50", "mobilenet_v2"], required=True)
    ap.add_argument("--models-dir", default=".", help="where NAME.map.json and NAME.nsproj are (torchvision models)")
    ap.add_argument("--batch", default="256", help="batch size, or several comma-separated: one JSON line each, in order")
    ap.add_argument("--precision", choices=["float", "bfloat16"], default="float")
    ap.add_argument("--mode", choices=["eager", "compile", "expert"], default="eager")
    ap.add_argument("--no-compile", action="store_true", help="expert mode without torch.compile (CPU smoke run)")
    ap.add_argument("--static", action="store_true",
                    help="with several batch sizes, compile each statically (default: one compilation, batch axis dynamic)")
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--iterations", default="50", help="timed iterations (one, or one per batch size)")
    ap.add_argument("--warmup", type=int, default=10)
    args = ap.parse_args()
    batches = [int(b) for b in args.batch.split(",")]
    its = [int(i) for i in args.iterations.split(",")]
    its = its * len(batches) if len(its) == 1 else its
    base = {"model": args.model, "precision": args.precision, "mode": args.mode, "torch": torch.__version__,
            "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(), "error": ""}
    rows = [dict(base, batch=b, iterations=n) for b, n in zip(batches, its)]
    started = time.perf_counter()
    try:
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        dev = torch.device(args.device)
        cuda = dev.type == "cuda"
        expert = args.mode == "expert"
        compiled = args.mode == "compile" or (expert and not args.no_compile)
        dynamic = compiled and len(batches) > 1 and not args.static
        for r in rows:
            r.update(gpu=torch.cuda.get_device_name(dev) if cuda else "cpu", compiled=compiled, dynamic_batch=dynamic)
        if expert:
            torch.backends.cudnn.benchmark = True
        torch.manual_seed(1)
        if args.model in ("lenet", "resnet"):
            net = (lenet() if args.model == "lenet" else resnet()).to(dev)
            shape, classes = [1, 28, 28], 10
            o = {"solver": "Adam", "alpha": 0.001, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8}
        else:
            net, shape, classes, o = torchvision_model(args.model, args.models_dir, dev)
            net.eval()
            with torch.no_grad():
                for r in rows:
                    cx, cy = check_batch(r["batch"], shape, classes)
                    r["check_loss"] = nn.functional.cross_entropy(net(cx.to(dev)), cy.to(dev)).item()
            net.train()
        if expert:  # before the optimizer takes the parameters
            net = net.to(memory_format=torch.channels_last)
        opt = None
        if expert and cuda:
            try:
                opt = make_optimizer(o, net.parameters(), fused=True)
            except (TypeError, RuntimeError, ValueError):  # this PyTorch has no fused step for it
                opt = None
        for r in rows:
            r.update(solver=o["solver"], fused_optimizer=opt is not None)
        if opt is None:
            opt = make_optimizer(o, net.parameters(), fused=False)
        loss_fn = nn.CrossEntropyLoss()
        model = torch.compile(net) if compiled else net
        fmt = torch.channels_last if expert else torch.contiguous_format
        sync = torch.cuda.synchronize if cuda else (lambda: None)
        setup = time.perf_counter() - started
    except Exception as e:
        for r in rows:
            r["error"] = f"{type(e).__name__}: {e}"[:500]
            print(json.dumps(r), flush=True)
        return
    for r in rows:
        try:
            t0 = time.perf_counter()
            b = r["batch"]
            xs = [torch.rand(b, *shape).contiguous(memory_format=fmt) for _ in range(4)]
            ys = [torch.randint(0, classes, (b,)) for _ in range(4)]
            if cuda:
                xs, ys = [x.pin_memory() for x in xs], [y.pin_memory() for y in ys]

            def step(i):
                x = xs[i % 4].to(dev, non_blocking=True)
                y = ys[i % 4].to(dev, non_blocking=True)
                if dynamic:  # maybe_: no error should the compiler specialise the batch axis after all
                    mark = getattr(torch._dynamo, "maybe_mark_dynamic", torch._dynamo.mark_dynamic)
                    mark(x, 0)
                    mark(y, 0)
                with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=args.precision == "bfloat16"):
                    loss = loss_fn(model(x), y)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                return loss.item()  # Netsmith reads the loss back every iteration too

            for i in range(args.warmup):
                step(i)
            sync()
            # set-up (the first row: imports aside, model, weights) + compilation + warm-up iterations
            r["warmup_s"] = time.perf_counter() - t0 + (setup if r is rows[0] else 0.0)
            start = time.perf_counter()
            total = 0.0
            for i in range(r["iterations"]):
                total += step(i)
            sync()
            seconds = time.perf_counter() - start
            r["samples_per_s"] = b * r["iterations"] / seconds
            r["mean_loss"] = total / r["iterations"]
        except Exception as e:  # a failed torch.compile is a result to print, not a crash
            r["error"] = f"{type(e).__name__}: {e}"[:500]
        print(json.dumps(r), flush=True)


if __name__ == "__main__":
    main()
