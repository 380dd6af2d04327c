#!/usr/bin/python3
"""PyTorch peer of netsmith-bench-train: the same models layer for layer, the same data in memory,
the same step (gather a shuffled batch, forward, backward, optimizer step), the same output line.

    /usr/bin/python3 tests/bench/pytorch_peer.py --model lenet --batch 64 --threads 1 \
        --iterations 50 --warmup 5 [--precision bfloat16] [--seconds 2]

Models: mlp, lenet, resnet (projects/fashion_mnist_*.nsproj) on Fashion-MNIST, and colour
(tests/bench/colour_cnn_64.nsproj) on random 3x64x64 samples with random labels (--synthetic N,
as netsmith-bench-train --synthetic: throughput only). --precision bfloat16 runs the forward pass
(and the loss) under torch.autocast("cpu", dtype=torch.bfloat16), the usual way to train in bf16
on a CPU; the backward follows autocast's casts, the parameters and the optimizer stay fp32.
--seconds S stops timing early, as netsmith-bench-train's does (at least 2 iterations).

Runs with Debian's python3-torch (1.13), which is installed for /usr/bin/python3 only, or with any
other interpreter that has torch and numpy (run_cpu_benchmark.sh also runs the current wheel from
a virtual environment). Prints one JSON line on stdout; it also says which BLAS library the process
mapped after a matmul and the MKL-DNN (oneDNN) status from torch.__config__.show().
"""
import argparse
import gzip
import json
import os
import re
import sys
import time

import numpy as np
import torch
from torch import nn

DATASETS = os.environ.get("NETSMITH_DATASETS", os.environ.get("DATASETS", "/usr/share/datasets"))

# Forward multiply-adds per sample, counted by hand (the same figure Graph::multiplyAdds gives:
# convolutions and inner products, plus one per BatchNormalization output).
def _conv(out_c, hw, in_c, k):
    return out_c * hw * hw * in_c * k * k


MACS = {
    # conv1 16x28x28 outputs x 1x5x5, conv2 32x10x10 outputs x 16x5x5, fc1 800x512, fc2 512x10
    "lenet": 16 * 28 * 28 * 25 + 32 * 10 * 10 * 16 * 25 + 800 * 512 + 512 * 10,
    # fc1 784x512, fc2 512x512, fc3 512x10
    "mlp": 784 * 512 + 512 * 512 + 512 * 10,
    # conv1 32@28x28, res1 2 x 32@14x14, conv2 64@7x7, res2 2 x 64@7x7 (3x3 kernels), fc 3136x10, BN outputs
    "resnet": _conv(32, 28, 1, 3) + 2 * _conv(32, 14, 32, 3) + _conv(64, 7, 32, 3) + 2 * _conv(64, 7, 64, 3)
    + 3136 * 10 + 32 * 28 * 28 + 2 * 32 * 14 * 14 + 3 * 64 * 7 * 7,
    # 4 x (3x3 conv, BN) at 64, 32, 16, 8 pixels with 16, 32, 64, 64 maps, fc 1024x10
    "colour": _conv(16, 64, 3, 3) + _conv(32, 32, 16, 3) + _conv(64, 16, 32, 3) + _conv(64, 8, 64, 3) + 1024 * 10
    + 16 * 64 * 64 + 32 * 32 * 32 + 64 * 16 * 16 + 64 * 8 * 8,
}
INPUT = {"mlp": (1, 28, 28), "lenet": (1, 28, 28), "resnet": (1, 28, 28), "colour": (3, 64, 64)}


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def conv_bn_relu(c_in, c_out):
    """Convolution 3x3 pad 1 (with bias, as netsmith's default with_bias), BatchNormalization
    (netsmith's decay_rate 0.9 is PyTorch's momentum 0.1, eps 1e-5), ReLU."""
    return [nn.Conv2d(c_in, c_out, 3, padding=1), nn.BatchNorm2d(c_out, eps=1e-5, momentum=0.1), nn.ReLU()]


class ResidualBlock(nn.Module):
    """projects/fashion_mnist_resnet.nsproj's res blocks: conv-BN-ReLU-conv-BN, Add2 with the
    block's input, ReLU."""

    def __init__(self, c):
        super().__init__()
        self.body = nn.Sequential(*conv_bn_relu(c, c), nn.Conv2d(c, c, 3, padding=1),
                                  nn.BatchNorm2d(c, eps=1e-5, momentum=0.1))
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.relu(self.body(x) + x)


def adam(net):
    return torch.optim.Adam(net.parameters(), lr=0.001, betas=(0.9, 0.999), eps=1e-8)


def build(model):
    if model == "resnet":
        # conv1-bn1-relu1-pool1, res1, pool2, conv2-bn2-relu2, res2, fc (3136 -> 10)
        net = nn.Sequential(
            *conv_bn_relu(1, 32), nn.MaxPool2d(2), ResidualBlock(32), nn.MaxPool2d(2),
            *conv_bn_relu(32, 64), ResidualBlock(64), nn.Flatten(), nn.Linear(64 * 7 * 7, 10))
        return net, adam(net)
    if model == "colour":
        # tests/bench/colour_cnn_64.nsproj: 4 x (conv 3x3, BN, ReLU, max pool 2), fc 1024 -> 10
        layers = []
        for c_in, c_out in ((3, 16), (16, 32), (32, 64), (64, 64)):
            layers += conv_bn_relu(c_in, c_out) + [nn.MaxPool2d(2)]
        net = nn.Sequential(*layers, nn.Flatten(), nn.Linear(64 * 4 * 4, 10))
        return net, adam(net)
    if model == "lenet":
        net = nn.Sequential(
            nn.Conv2d(1, 16, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 5), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(800, 512), nn.ReLU(), nn.Linear(512, 10))
        opt = torch.optim.Adam(net.parameters(), lr=0.001, betas=(0.9, 0.999), eps=1e-8)
    else:
        net = nn.Sequential(
            nn.Flatten(), nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
        opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    return net, opt


def blas_info():
    """The BLAS/LAPACK/MKL shared objects this process has mapped, after a matmul loaded them."""
    a = torch.randn(64, 64)
    (a @ a).sum().item()
    libs = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            parts = line.split()
            if len(parts) >= 6 and re.search(r"lib(open)?blas|libmkl|libblis|liblapack|libgomp|libiomp", parts[5]):
                libs.add(parts[5])
    resolved = sorted({os.path.realpath(p) for p in libs})
    blas = [p for p in resolved if re.search(r"blas|mkl|blis", os.path.basename(p))]
    config = torch.__config__.show().strip().splitlines()
    lines = [l.strip() for l in config if re.search(r"MKL|OpenMP|CPU capability|oneDNN|LAPACK", l)
             and not l.strip().startswith("- Build settings")]
    # From the long build-settings line keep only what says which BLAS and oneDNN torch was built with.
    for l in config:
        if "Build settings" in l:
            lines += re.findall(r"(?:BLAS_INFO|LAPACK_INFO|USE_MKLDNN|USE_OPENMP)=[^,]*", l)
    return {
        "blas_libs": blas,
        "other_libs": [p for p in resolved if p not in blas],
        "torch_config": lines,
        "mkldnn_available": torch.backends.mkldnn.is_available(),
        "mkl_available": torch.backends.mkl.is_available(),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", choices=sorted(MACS), required=True)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--profile-iterations", type=int, default=0,
                    help="after timing, this many steps under torch.profiler; per_layer_ms then holds self CPU "
                         "ms per step of the top operators")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--precision", choices=["float", "bfloat16"], default="float")
    ap.add_argument("--synthetic", type=int, default=0,
                    help="N random samples of the model's input shape with random labels instead of Fashion-MNIST "
                         "(always for colour; 1024 unless given)")
    ap.add_argument("--seconds", type=float, default=0.0,
                    help="stop timing after the iteration that passes S seconds (at least 2 iterations)")
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    info = blas_info()

    t = time.perf_counter()
    synthetic = args.synthetic or (1024 if args.model == "colour" else 0)
    if synthetic:
        gen = torch.Generator().manual_seed(args.seed)
        x_all = torch.rand((synthetic,) + INPUT[args.model], generator=gen)
        y_all = torch.randint(0, 10, (synthetic,), generator=gen)
    else:
        root = os.path.join(DATASETS, "fashion-mnist")
        images = read_idx(os.path.join(root, "train-images-idx3-ubyte.gz"))
        labels = read_idx(os.path.join(root, "train-labels-idx1-ubyte.gz"))
        x_all = torch.from_numpy(images.astype(np.float32) * np.float32(1.0 / 255.0)).reshape(-1, 1, 28, 28).contiguous()
        y_all = torch.from_numpy(labels.astype(np.int64))
    load_ms = 1000 * (time.perf_counter() - t)
    n = x_all.shape[0]

    net, opt = build(args.model)
    net.train()
    loss_fn = nn.CrossEntropyLoss()
    rng = np.random.default_rng(args.seed)
    state = {"order": torch.from_numpy(rng.permutation(n)), "pos": 0}

    def next_batch():
        if (state["pos"] + 1) * args.batch > n:
            state["order"] = torch.from_numpy(rng.permutation(n))
            state["pos"] = 0
        idx = state["order"][state["pos"] * args.batch:(state["pos"] + 1) * args.batch]
        state["pos"] += 1
        return x_all.index_select(0, idx), y_all.index_select(0, idx)

    phase = {"gather": 0.0, "forward": 0.0, "backward": 0.0, "optimizer": 0.0}
    losses = []

    def step(timed):
        t0 = time.perf_counter()
        x, y = next_batch()
        t1 = time.perf_counter()
        if args.precision == "bfloat16":
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = loss_fn(net(x), y)
        else:
            loss = loss_fn(net(x), y)
        t2 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        t3 = time.perf_counter()
        opt.step()
        t4 = time.perf_counter()
        if timed:
            for k, a, b in (("gather", t0, t1), ("forward", t1, t2), ("backward", t2, t3), ("optimizer", t3, t4)):
                phase[k] += b - a
        losses.append(loss.item())

    for _ in range(args.warmup):
        step(False)
    losses.clear()
    cpu_start = time.process_time()  # CPU seconds of all threads, as netsmith-bench-train counts
    start = time.perf_counter()
    iterations = 0
    while iterations < args.iterations:
        step(True)
        iterations += 1
        if args.seconds > 0 and iterations >= 2 and time.perf_counter() - start >= args.seconds:
            break
    args.iterations = iterations
    total = time.perf_counter() - start
    cpu_total = time.process_time() - cpu_start

    per_layer = None
    if args.profile_iterations > 0:
        from torch.profiler import profile, ProfilerActivity
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            for _ in range(args.profile_iterations):
                step(False)
        rows = sorted(prof.key_averages(), key=lambda e: e.self_cpu_time_total, reverse=True)[:15]
        per_layer = {e.key: e.self_cpu_time_total / 1000.0 / args.profile_iterations for e in rows}

    sps = args.iterations * args.batch / total
    out = {
        "samples_per_s": sps,
        "ms_per_step": 1000 * total / args.iterations,
        "cpu_samples_per_s": args.iterations * args.batch / cpu_total,
        "cpu_ms_per_step": 1000 * cpu_total / args.iterations,
        "per_layer_ms": per_layer,
        "phase_ms": {k: 1000 * v / args.iterations for k, v in phase.items()},
        "model": args.model,
        "batch": args.batch,
        "threads": torch.get_num_threads(),
        "iterations": args.iterations,
        "warmup": args.warmup,
        "precision": args.precision,
        "data": "synthetic" if synthetic else "fashion-mnist",
        "macs_per_sample": MACS[args.model],
        "train_gflops": 6.0 * MACS[args.model] * sps / 1e9,
        "loss_first": losses[0],
        "loss_last": losses[-1],
        "load_ms": load_ms,
        "torch": torch.__version__,
        "python": sys.executable,
        "cpu_capability": getattr(getattr(torch.backends, "cpu", None), "get_cpu_capability", lambda: None)(),
    }
    out.update(info)
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    sys.exit(main())
