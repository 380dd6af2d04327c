#!/usr/bin/env python3
"""torchvision's ResNet-18, ResNet-50 and MobileNetV2 (3x224x224, 1000 classes) for the GPU
benchmark (tests/bench/run_gpu_benchmark.sh, docs/performance-gpu.md): one network and one set of
weights that Netsmith and PyTorch both train.

    export_torchvision_models.py prepare --cli build/bin/netsmith-cli --out DIR [--models resnet18,...]
    export_torchvision_models.py write-nsparams --map DIR/resnet18.map.json [DIR/resnet50.map.json ...]

Note [Benchmark weights]
The weights are a function of (seed, state_dict key, element index) — a 32-bit integer hash computed
with torch's int64 arithmetic, no RNG library — with torchvision's initialisers' spread (convolutions
uniform with the variance of kaiming_normal fan_out, Linear layers uniform ±1/sqrt(fan_in),
BatchNormalization scale 1, shift 0, running mean 0, variance 1). So the GPU machine regenerates
them bit for bit from this file and the small NAME.map.json, whatever its PyTorch version, instead
of carrying ResNet-50's 100 MB: PyTorch loads them into the torchvision model
(pytorch_gpu_peer.py), and `write-nsparams` writes them as the imported project's NAME.nsparams
(config.initial_parameters, which `netsmith-gpu-check bench` loads), under the names and layouts
the importer gives them.

`prepare` (here, with Debian's PyTorch and torchvision; torch and torchvision only, no download):
  1. builds the model (weights=None), fills it with the *check* weights (the benchmark's, but with
     BatchNormalization's four vectors random too, so that every tensor is distinct and the
     running statistics are exercised), and exports it in training mode (TrainingMode.TRAINING:
     BatchNormalization stays a layer instead of being folded into the convolution, and
     MobileNetV2's Dropout stays) at opset 13;
  2. imports it with `netsmith-cli import` (SoftmaxCrossEntropy: a classifier's raw scores), and
     once more with `--loss SquaredError` to compare raw scores;
  3. maps every blob of the imported NAME.nsparams to the state_dict key holding the same values
     (Affine weights transposed) — a blob without one is an error;
  4. checks that `netsmith-cli infer` on a fixed input gives torchvision's eval-mode outputs (raw
     scores and softmax), and that write-nsparams with the check weights reproduces the
     importer's file tensor for tensor;
  5. sets the project's optimizer to Momentum (lr 0.01, momentum 0.9), as PyTorch's
     SGD(momentum=0.9) in the peer, and leaves NAME.nsproj and NAME.map.json in DIR (a few hundred
     kB); the ONNX files and parameter files are removed.
"""
import argparse
import hashlib
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import time
import zlib

import torch

MODELS = ("resnet18", "resnet50", "mobilenet_v2")
SEED = 1
OPTIMIZER = {"solver": "Momentum", "lr": 0.01, "momentum": 0.9, "weight_decay": 0}


def build(name):
    """The torchvision model with its own initialisers (overwritten by apply_weights)."""
    import torchvision
    return getattr(torchvision.models, name)(weights=None)


# --- Note [Benchmark weights]: the hash -------------------------------------------------------
_M32 = 0xFFFFFFFF


def _mix(x):
    # A 32-bit integer finaliser on int64 tensors holding values in [0, 2^32): every product is
    # below 2^63 (multipliers < 2^31), so no step overflows on any platform.
    x = x ^ (x >> 16)
    x = (x * 0x7FEB352D) & _M32
    x = x ^ (x >> 15)
    x = (x * 0x5BD1E995) & _M32
    return x ^ (x >> 16)


def seeded(key, shape, rule, seed):
    """The float32 tensor of `shape` that `rule` ({"const": v} or {"uniform": bound}) gives `key`."""
    n = math.prod(shape)
    if "const" in rule:
        return torch.full(shape, float(rule["const"]), dtype=torch.float32)
    salt = zlib.crc32(f"{seed}:{key}".encode())
    h = _mix(_mix(torch.arange(n, dtype=torch.int64)) ^ salt)
    u = (h >> 8).to(torch.float64) / float(1 << 24)         # exact: 24 bits in [0, 1)
    lo, hi = (-rule["uniform"], rule["uniform"]) if "uniform" in rule else rule["range"]
    return (lo + (hi - lo) * u).to(torch.float32).reshape(shape)  # one rounding, IEEE everywhere


def rules(model, check=False):
    """{state_dict key: (shape, rule)} for every float tensor of the model (Note [Benchmark weights])."""
    out = {}
    for prefix, m in model.named_modules():
        p = f"{prefix}." if prefix else ""
        if isinstance(m, torch.nn.Conv2d):
            fan_out = m.weight.shape[0] * m.weight[0, 0].numel()
            out[p + "weight"] = {"uniform": math.sqrt(6.0 / fan_out)}  # kaiming_normal(fan_out)'s variance
            if m.bias is not None:
                out[p + "bias"] = {"const": 0.0}
        elif isinstance(m, torch.nn.Linear):
            bound = 1.0 / math.sqrt(m.in_features)
            out[p + "weight"] = {"uniform": bound}
            out[p + "bias"] = {"uniform": bound}
        elif isinstance(m, torch.nn.BatchNorm2d):
            if check:
                out[p + "weight"] = {"range": (0.5, 1.5)}
                out[p + "bias"] = {"range": (-0.2, 0.2)}
                out[p + "running_mean"] = {"range": (-0.2, 0.2)}
                out[p + "running_var"] = {"range": (0.5, 1.5)}
            else:
                out[p + "weight"], out[p + "bias"] = {"const": 1.0}, {"const": 0.0}
                out[p + "running_mean"], out[p + "running_var"] = {"const": 0.0}, {"const": 1.0}
    state = model.state_dict()
    missing = [k for k, v in state.items() if v.is_floating_point() and k not in out]
    if missing:
        raise SystemExit(f"no weight rule for {missing[:5]} (a module type this file does not know)")
    return {k: (list(state[k].shape), r) for k, r in out.items()}


def apply_weights(model, table, seed):
    """Fills the model's tensors from {key: (shape, rule)} (a map file's "rules" or rules())."""
    state = model.state_dict()
    with torch.no_grad():
        for key, (shape, rule) in table.items():
            if list(state[key].shape) != list(shape):
                raise SystemExit(f"{key}: the model has shape {list(state[key].shape)}, the map {shape}")
            state[key].copy_(seeded(key, shape, rule, seed))
    return model


def load_map(path):
    with open(path) as f:
        m = json.load(f)
    m["rules"] = {k: (v["shape"], v["rule"]) for k, v in m["rules"].items()}
    return m


def benchmark_model(map_path, device="cpu"):
    """The torchvision model of a map file with the benchmark weights (pytorch_gpu_peer.py)."""
    m = load_map(map_path)
    return apply_weights(build(m["model"]), m["rules"], m["seed"]).to(device), m


# --- Netsmith's parameters file (engine/model/checkpoint.h) ----------------------------------
def read_nsparams(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"NSCKPT01" or hashlib.sha256(data[:-32]).digest() != data[-32:]:
        raise SystemExit(f"{path}: not a Netsmith parameters file, or damaged")
    pos = 8
    (n,) = struct.unpack_from("<Q", data, pos)
    meta = json.loads(data[pos + 8:pos + 8 + n])
    pos += 8 + n
    (count,) = struct.unpack_from("<Q", data, pos)
    pos += 8
    tensors = {}
    for _ in range(count):
        (n,) = struct.unpack_from("<I", data, pos)
        name = data[pos + 4:pos + 4 + n].decode()
        pos += 4 + n
        (rank,) = struct.unpack_from("<I", data, pos)
        dims = struct.unpack_from(f"<{rank}q", data, pos + 4)
        pos += 4 + 8 * rank
        numel = math.prod(dims)
        t = torch.frombuffer(bytearray(data[pos:pos + 4 * numel]), dtype=torch.float32).reshape(dims)
        pos += 4 * numel
        tensors[name] = t
    return meta, tensors


def write_nsparams(path, tensors, meta):
    """Atomically: a temporary file renamed over `path`."""
    body = bytearray(b"NSCKPT01")
    mj = json.dumps(meta).encode()
    body += struct.pack("<Q", len(mj)) + mj + struct.pack("<Q", len(tensors))
    for name, t in tensors:
        nb = name.encode()
        t = t.contiguous().to(torch.float32)
        body += struct.pack("<I", len(nb)) + nb + struct.pack("<I", t.dim()) + struct.pack(f"<{t.dim()}q", *t.shape)
        try:
            body += t.numpy().tobytes()
        except (RuntimeError, ImportError):  # a PyTorch without NumPy
            body += bytes(t.untyped_storage())
    body += hashlib.sha256(body).digest()
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(body)
    os.replace(tmp, path)


def nsparams_tensors(m, table):
    """[(Netsmith blob name, tensor)] of a map file for the weights of `table`."""
    out = []
    for blob in m["blobs"]:
        shape, rule = table[blob["key"]]
        t = seeded(blob["key"], shape, rule, m["seed"])
        out.append((blob["name"], t.t() if blob["transpose"] else t))
    return out


def cmd_write_nsparams(args):
    """Each DIR/NAME.map.json's weights to DIR/NAME.nsparams (or --out for one map)."""
    for path in args.map:
        m = load_map(path)
        out = args.out or path[:-len(".map.json")] + ".nsparams"
        write_nsparams(out, nsparams_tensors(m, m["rules"]),
                       {"source": "tests/bench/export_torchvision_models.py", "model": m["model"], "seed": m["seed"]})


# --- prepare ---------------------------------------------------------------------------------
def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    return r.stdout


def match_blobs(imported, state, model):
    """[{name, key, transpose}]: the state_dict tensor each imported blob equals."""
    blobs, used = [], set()
    for name, t in imported.items():
        hit = None
        for key, v in state.items():
            if key in used or not v.is_floating_point() or v.numel() != t.numel():
                continue
            if tuple(v.shape) == tuple(t.shape) and torch.equal(v, t):
                hit = (key, False)
            elif v.dim() == 2 and tuple(v.t().shape) == tuple(t.shape) and torch.equal(v.t(), t):
                hit = (key, True)
            if hit:
                break
        if not hit:
            raise SystemExit(f"{model}: imported blob {name} {list(t.shape)} equals no tensor of torchvision's model")
        used.add(hit[0])
        blobs.append({"name": name, "key": hit[0], "transpose": hit[1]})
    unused = [k for k, v in state.items() if v.is_floating_point() and k not in used]
    if unused:
        raise SystemExit(f"{model}: torchvision tensors the import does not hold: {unused[:8]}")
    return blobs


def prepare_one(name, cli, out, batch):
    import numpy as np
    t0 = time.time()
    work = os.path.join(out, f".{name}-work")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    model = build(name)
    check = rules(model, check=True)
    apply_weights(model, check, SEED)
    onnx_path = os.path.join(work, f"{name}.onnx")
    x = torch.rand(batch, 3, 224, 224, generator=torch.Generator().manual_seed(SEED))
    model.train()
    import inspect  # PyTorch 2.9 made the dynamo exporter the default: ask for the TorchScript one
    legacy = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
    torch.onnx.export(model, x, onnx_path, opset_version=13, input_names=["x"], output_names=["y"],
                      training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False,
                      dynamic_axes={"x": {0: "N"}, "y": {0: "N"}}, **legacy)
    # The training-mode export ran a forward in training mode, which moved BatchNormalization's
    # running statistics; the file holds the moved ones, and so does the model now: both compared.
    model.eval()
    with torch.no_grad():
        ref = model(x)
    t_export = time.time() - t0
    project = os.path.join(out, f"{name}.nsproj")
    summary = json.loads(run([cli, "import", onnx_path, "--output", project, "--force", "--json"]).strip().splitlines()[-1])
    raw = os.path.join(work, "raw.nsproj")
    run([cli, "import", onnx_path, "--output", raw, "--loss", "SquaredError", "--force"])
    os.remove(onnx_path)
    meta, imported = read_nsparams(os.path.join(out, f"{name}.nsparams"))
    blobs = match_blobs(imported, model.state_dict(), name)
    m = {"model": name, "seed": SEED, "input": [3, 224, 224], "classes": 1000,
         "note": "Note [Benchmark weights] in tests/bench/export_torchvision_models.py",
         "rules": {k: {"shape": s, "rule": r} for k, (s, r) in rules(model).items()}, "blobs": blobs}
    # The writer with the check weights must give the importer's tensors exactly (the running
    # statistics aside: the export moved them, and match_blobs found them in the model).
    mine = dict(nsparams_tensors(m, check))
    moved = {b["name"] for b in blobs if b["key"].endswith(("running_mean", "running_var"))}
    differ = [b for b, t in imported.items() if b not in moved and not torch.equal(mine[b], t)]
    if differ or len(mine) != len(imported):
        raise SystemExit(f"{name}: write-nsparams differs from the import in {differ[:5]}")
    np.save(os.path.join(work, "x.npy"), x.numpy())
    run([cli, "infer", raw, "--input", os.path.join(work, "x.npy"), "--output", os.path.join(work, "raw.npy")])
    run([cli, "infer", project, "--input", os.path.join(work, "x.npy"), "--output", os.path.join(work, "p.npy")])
    got_raw = torch.from_numpy(np.load(os.path.join(work, "raw.npy"))).reshape(ref.shape)
    got_p = torch.from_numpy(np.load(os.path.join(work, "p.npy"))).reshape(ref.shape)
    scale = ref.abs().max().item()
    raw_err = (got_raw - ref).abs().max().item()
    p_err = (got_p - torch.softmax(ref.double(), 1).float()).abs().max().item()
    ok = raw_err <= 1e-3 * scale and p_err <= 1e-5
    with open(project) as f:
        proj = json.load(f)
    proj["optimizer"] = dict(OPTIMIZER, lr_multiplier=1, lr_update_interval=1, warmup_epochs=0, lr_schedule="none")
    proj["name"] = f"torchvision {name} (benchmark)"
    with open(project, "w") as f:
        json.dump(proj, f, indent=1)
    m["check"] = {"batch": batch, "raw_max_abs": raw_err, "raw_scale": scale, "softmax_max_abs": p_err,
                  "layers": summary.get("layers"), "parameters": summary.get("parameter_values"), "passed": ok}
    with open(os.path.join(out, f"{name}.map.json"), "w") as f:
        json.dump(m, f, indent=1)
    os.remove(os.path.join(out, f"{name}.nsparams"))  # the benchmark writes its own (write-nsparams)
    shutil.rmtree(work)
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {summary.get('layers')} layers, {summary.get('parameter_values')} parameters, "
          f"{len(blobs)} blobs mapped; infer vs torchvision (eval, {batch}x3x224x224): raw scores max abs "
          f"{raw_err:.2e} of max |score| {scale:.3g} ({raw_err / scale:.1e}), softmax max abs {p_err:.1e}; "
          f"export {t_export:.0f} s, all {time.time() - t0:.0f} s", flush=True)
    return ok


def cmd_prepare(args):
    import warnings
    warnings.simplefilter("ignore")  # the exporter's notes on training mode and in-place ops
    torch.manual_seed(SEED)
    torch.set_num_threads(args.threads)
    os.makedirs(args.out, exist_ok=True)
    print(f"# PyTorch {torch.__version__}, exporting to {args.out}", flush=True)
    ok = all([prepare_one(n, args.cli, args.out, args.batch) for n in args.models.split(",")])
    sys.exit(0 if ok else 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="export, import and check the models (here, before the carry)")
    p.add_argument("--cli", required=True, help="netsmith-cli")
    p.add_argument("--out", required=True)
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--batch", type=int, default=2, help="samples of the infer check")
    p.add_argument("--threads", type=int, default=1)
    p.set_defaults(func=cmd_prepare)
    w = sub.add_parser("write-nsparams", help="the benchmark weights as the imported project's NAME.nsparams")
    w.add_argument("--map", required=True, nargs="+", help="NAME.map.json files (the output: NAME.nsparams beside each)")
    w.add_argument("--out", help="the output file when there is one map")
    w.set_defaults(func=cmd_write_nsparams)
    args = ap.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
