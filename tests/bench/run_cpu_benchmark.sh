#!/usr/bin/env bash
# CPU training throughput: netsmith-bench-train against tests/bench/pytorch_peer.py, same models,
# batches, thread counts and iterations. Builds nothing: expects $NETSMITH_BUILD/bin/netsmith-bench-train
# (default build/). Runs the two sides alternately (netsmith, torch, netsmith, torch) so a noisy,
# shared machine hurts both alike, and prints one table. About 3-4 minutes on 2 cores.
#
#   tests/bench/run_cpu_benchmark.sh            # from the repository root
#   NETSMITH_BUILD=build-bench tests/bench/run_cpu_benchmark.sh
#   SAMPLES_SCALE=2 tests/bench/run_cpu_benchmark.sh   # twice the timed samples per run
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${NETSMITH_BUILD:-build}
[[ $build = /* ]] || build="$root/$build"
bench="$build/bin/netsmith-bench-train"
peer="$root/tests/bench/pytorch_peer.py"
py=/usr/bin/python3  # Debian's interpreter: python3-torch is installed for it only
scale=${SAMPLES_SCALE:-1}

[[ -x $bench ]] || { echo "error: $bench not found: build the netsmith-bench-train target first" >&2; exit 1; }
$py -c 'import torch' 2>/dev/null || { echo "error: $py cannot import torch: install python3-torch" >&2; exit 1; }

# Timed samples per run (iterations = samples / batch): LeNet costs ~3x an MLP sample.
declare -A samples=([mlp]=$((12800 * scale)) [lenet]=$((2560 * scale)))
warmup=3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "# netsmith-bench-train vs PyTorch, $(date -u +%FT%TZ), $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
for model in mlp lenet; do
  for batch in 64 256; do
    for threads in 1 2; do
      iters=$((samples[$model] / batch))
      for round in 1 2; do
        OMP_NUM_THREADS=$threads "$bench" --project "$root/projects/fashion_mnist_$model.nsproj" --batch $batch \
          --threads $threads --iterations $iters --warmup $warmup --per-layer-iterations 0 \
          > "$out/ns_${model}_${batch}_${threads}_$round.json"
        OMP_NUM_THREADS=$threads $py "$peer" --model $model --batch $batch --threads $threads --iterations $iters \
          --warmup $warmup > "$out/pt_${model}_${batch}_${threads}_$round.json"
      done
      echo "# done: $model batch $batch threads $threads ($iters iterations per run)" >&2
    done
  done
done

$py - "$out" "$bench" <<'EOF'
import json, os, statistics, subprocess, sys
out, bench = sys.argv[1], sys.argv[2]
def load(side, model, batch, threads, rnd):
    with open(os.path.join(out, f"{side}_{model}_{batch}_{threads}_{rnd}.json")) as f:
        return json.load(f)
# Forward multiply-adds per sample; training = forward + two backward GEMMs = 3 x 2 FLOPs per MAC.
macs = {"mlp": 784 * 512 + 512 * 512 + 512 * 10,
        "lenet": 16 * 28 * 28 * 25 + 32 * 10 * 10 * 16 * 25 + 800 * 512 + 512 * 10}
print()
for m, n in macs.items():
    print(f"FLOPs per sample (fwd+bwd = 6 x {n:,} MACs): {m}: {6 * n / 1e6:.2f} MFLOP")
print()
hdr = (f"{'model':<6} {'batch':>5} {'thr':>3} | {'netsmith samples/s (r1, r2)':>27} | {'PyTorch samples/s (r1, r2)':>26} |"
       f" {'ratio':>5} | {'ns GFLOP/s':>10} {'pt GFLOP/s':>10} | {'per CPU-s: ns':>13} {'pt':>7} {'ratio':>5}")
print(hdr)
print("-" * len(hdr))
blas = None
for model in ("mlp", "lenet"):
    for batch in (64, 256):
        for threads in (1, 2):
            ns = [load("ns", model, batch, threads, r) for r in (1, 2)]
            pt = [load("pt", model, batch, threads, r) for r in (1, 2)]
            assert ns[0]["macs_per_sample"] == macs[model], (model, ns[0]["macs_per_sample"])
            blas = blas or pt[0]
            nss = [r["samples_per_s"] for r in ns]
            pts = [r["samples_per_s"] for r in pt]
            mn, mp = statistics.median(nss), statistics.median(pts)
            cn = statistics.median(r["cpu_samples_per_s"] for r in ns)
            cp = statistics.median(r["cpu_samples_per_s"] for r in pt)
            f = 6 * macs[model] / 1e9
            print(f"{model:<6} {batch:>5} {threads:>3} | {nss[0]:>13,.0f} {nss[1]:>13,.0f} | {pts[0]:>12,.0f} {pts[1]:>13,.0f} |"
                  f" {mn / mp:>5.2f} | {mn * f:>10.2f} {mp * f:>10.2f} | {cn:>13,.0f} {cp:>7,.0f} {cn / cp:>5.2f}")
print()
print("ratio = median netsmith / median PyTorch (> 1: netsmith faster); GFLOP/s from the medians")
print("per CPU-s: samples per CPU-second of the process (all threads; medians), steadier than wall time on a busy")
print("machine for 1 thread; with 2 threads it also counts OpenMP spin-waiting")
print(f"BLAS (PyTorch): {', '.join(blas['blas_libs']) or 'none mapped'}; torch {blas['torch']}; "
      f"mkldnn available: {blas['mkldnn_available']}; mkl available: {blas['mkl_available']}")
for line in blas["torch_config"]:
    print(f"  torch config: {line}")
libs = [l.split("=>")[-1].split("(")[0].strip() for l in subprocess.run(["ldd", bench], capture_output=True, text=True).stdout.splitlines()
        if any(k in l for k in ("dnnl", "blas", "gomp", "mkl"))]
print(f"netsmith links: {', '.join(os.path.realpath(l) for l in libs)} (no separate BLAS: inner products use oneDNN's own GEMM)")
EOF
