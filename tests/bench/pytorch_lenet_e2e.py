#!/usr/bin/env python3
"""End-to-end PyTorch peer of `netsmith-cli train projects/fashion_mnist_lenet.nsproj` on one GPU:
the project's LeNet (pytorch_gpu_peer.py's, layer for layer), its settings (max_epoch, batch_size,
Adam's alpha and betas, seed, dataset scale and shuffling), the Fashion-MNIST IDX files it names read
once and kept on the GPU as tensors, shuffled each epoch on the GPU (torch.randperm), as many
iterations per epoch as Netsmith (samples // batch: the last partial batch is dropped), validated on
the whole validation set after every epoch. What an expert writes when the data fits on the GPU:
no DataLoader, no host copies, the loss summed on the GPU and read back once per epoch.

    python3 tests/bench/pytorch_lenet_e2e.py --project projects/fashion_mnist_lenet.nsproj --device cuda:0

Prints one JSON line: epochs, the last epoch's validation error and loss, and the seconds from this
process's start (the benchmark times both sides from outside too, the same way). ${DATASETS} in the
project's paths is the environment's DATASETS, else /usr/share/datasets, as in Netsmith.
"""
import time

STARTED = time.perf_counter()

import argparse  # noqa: E402
import gzip  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import struct  # noqa: E402
import sys  # noqa: E402

import torch  # noqa: E402
from torch import nn  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pytorch_gpu_peer import lenet  # noqa: E402


def read_idx(path, project_dir):
    path = path.replace("${DATASETS}", os.environ.get("DATASETS", "/usr/share/datasets"))
    if not os.path.isabs(path):
        path = os.path.join(project_dir, path)
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = struct.unpack(f">{dims}I", data[4:4 + 4 * dims])
    return torch.frombuffer(bytearray(data[4 + 4 * dims:]), dtype=torch.uint8).reshape(shape)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--project", required=True)
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--max-epoch", type=int, help="override config.max_epoch")
    ap.add_argument("--train-samples", type=int, help="the first N training samples only (smoke runs)")
    ap.add_argument("--validation-samples", type=int, help="the first N validation samples only")
    args = ap.parse_args()
    with open(args.project) as f:
        p = json.load(f)
    pdir = os.path.dirname(os.path.abspath(args.project))
    cfg, o, ds = p["config"], p["optimizer"], p["dataset"]
    if o["solver"] != "Adam":
        raise SystemExit(f"{args.project}: solver {o['solver']}; this script trains with Adam as the sample does")
    dev = torch.device(args.device)
    torch.manual_seed(cfg.get("seed", 1))
    scale = ds.get("scale", 1.0)

    def load(part, limit):
        x = read_idx(ds[part]["images"], pdir)[:limit]
        y = read_idx(ds[part]["labels"], pdir)[:limit]
        # One copy to the GPU, then scaled there: (N, 1, 28, 28) float32, labels int64.
        return x.to(dev).unsqueeze(1).float().mul_(scale), y.to(dev).long()

    xt, yt = load("training", args.train_samples)
    xv, yv = load("validation", args.validation_samples)
    loaded = time.perf_counter() - STARTED
    net = lenet().to(dev)
    opt = torch.optim.Adam(net.parameters(), lr=o.get("alpha", 0.001), betas=(o.get("beta1", 0.9), o.get("beta2", 0.999)),
                           eps=o.get("eps", 1e-8), weight_decay=o.get("weight_decay", 0))
    loss_fn = nn.CrossEntropyLoss()
    batch, epochs = cfg["batch_size"], args.max_epoch or cfg["max_epoch"]
    iterations = xt.shape[0] // batch
    history = []
    for epoch in range(1, epochs + 1):
        net.train()
        order = torch.randperm(xt.shape[0], device=dev) if ds.get("shuffle", True) else torch.arange(xt.shape[0], device=dev)
        total = torch.zeros((), device=dev)
        for i in range(iterations):
            idx = order[i * batch:(i + 1) * batch]
            loss = loss_fn(net(xt[idx]), yt[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            total += loss.detach()
        net.eval()
        wrong, vloss = torch.zeros((), device=dev), torch.zeros((), device=dev)
        with torch.no_grad():
            for i in range(0, xv.shape[0], 1000):
                z = net(xv[i:i + 1000])
                vloss += loss_fn(z, yv[i:i + 1000]) * z.shape[0]
                wrong += (z.argmax(1) != yv[i:i + 1000]).sum()
        history.append({"epoch": epoch, "train_loss": (total / iterations).item(),
                        "validation_error": wrong.item() / xv.shape[0], "validation_loss": vloss.item() / xv.shape[0]})
    if dev.type == "cuda":
        torch.cuda.synchronize()
    print(json.dumps({"epochs": epochs, "batch": batch, "iterations_per_epoch": iterations, "device": str(dev),
                      "validation_error": history[-1]["validation_error"], "validation_loss": history[-1]["validation_loss"],
                      "history": history, "load_seconds": loaded, "seconds": time.perf_counter() - STARTED,
                      "torch": torch.__version__}))


if __name__ == "__main__":
    main()
