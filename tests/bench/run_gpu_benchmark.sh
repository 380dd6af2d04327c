#!/usr/bin/env bash
# GPU training throughput in one command: `netsmith-gpu-check bench` against PyTorch on the same
# GPU (tests/bench/pytorch_gpu_peer.py), the LeNet and ResNet samples at batch 256 and 1024, float
# and bfloat16, PyTorch eager and torch.compile; prints a table of samples/s, the ratio Netsmith /
# PyTorch, and the TFLOP/s each achieves against the card's measured peak (a large cuBLAS GEMM,
# `netsmith-gpu-check peak`). Rows alternate sides (Netsmith, PyTorch eager, PyTorch compile) so
# clock changes hurt all alike. Commands for the lent GPU machine: tests/gpu/README.md.
#
#   tests/bench/run_gpu_benchmark.sh                 # from the repository root
#   NETSMITH_GPU_CHECK=path/to/netsmith-gpu-check ITERATIONS=100 tests/bench/run_gpu_benchmark.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
check=${NETSMITH_GPU_CHECK:-$root/build-cuda/bin/netsmith-gpu-check}
py=${PYTHON:-python3}
iterations=${ITERATIONS:-50}
warmup=${WARMUP:-10}
device=${DEVICE:-cuda:0}
export NETSMITH_SOURCE_DIR=$root

[[ -x $check ]] || { echo "error: $check not found (build netsmith-gpu-check, or set NETSMITH_GPU_CHECK)" >&2; exit 1; }
$py -c 'import torch; assert torch.cuda.is_available()' || { echo "error: $py has no CUDA PyTorch" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "# netsmith-gpu-check bench vs PyTorch, $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader || true
"$check" peak --device "$device" | tee "$out/peak.json"
for model in lenet resnet; do
  for batch in 256 1024; do
    for precision in float bfloat16; do
      tag=${model}_${batch}_$precision
      "$check" bench --project "$root/projects/fashion_mnist_$model.nsproj" --device "$device" --batch $batch \
        --precision $precision --iterations $iterations --warmup $warmup > "$out/ns_$tag.json" || true
      for mode in eager compile; do
        $py "$root/tests/bench/pytorch_gpu_peer.py" --model $model --batch $batch --precision $precision --mode $mode \
          --iterations $iterations --warmup $warmup > "$out/pt_${tag}_$mode.json" || true
      done
      echo "# done: $tag" >&2
    done
  done
done

$py - "$out" <<'PYEOF'
import json, os, sys
out = sys.argv[1]
def load(name):
    try:
        with open(os.path.join(out, name)) as f:
            return json.loads(f.read().strip().splitlines()[-1])
    except Exception as e:
        return {"error": f"no result ({e})"}
peak = load("peak.json")
print()
print(f"measured peak (cuBLAS 8192^3 GEMM, TFLOP/s): " + ", ".join(f"{k} {v:.1f}" for k, v in peak.items() if isinstance(v, float)))
hdr = f"{'model':<7}{'batch':>6} {'precision':<9}| {'netsmith/s':>11} {'eager/s':>11} {'compile/s':>11} | {'vs eager':>8} {'vs compile':>10} | {'ns TFLOP/s':>10} {'% peak':>7}"
print(hdr)
print("-" * len(hdr))
worst = None
for model in ("lenet", "resnet"):
    for batch in (256, 1024):
        for precision in ("float", "bfloat16"):
            tag = f"{model}_{batch}_{precision}"
            ns, pe, pc = load(f"ns_{tag}.json"), load(f"pt_{tag}_eager.json"), load(f"pt_{tag}_compile.json")
            n, e, c = ns.get("samples_per_s"), pe.get("samples_per_s"), pc.get("samples_per_s")
            fmt = lambda v: f"{v:11.0f}" if v else f"{'error':>11}"
            ratio = lambda a, b: f"{a / b:.2f}x" if a and b else "-"
            tflops = ns.get("tflops")
            ref = peak.get("fp32" if precision == "float" else "bf16")
            pct = f"{100 * tflops / ref:6.1f}%" if tflops and ref else "-"
            print(f"{model:<7}{batch:>6} {precision:<9}| {fmt(n)} {fmt(e)} {fmt(c)} | {ratio(n, e):>8} {ratio(n, c):>10} | "
                  f"{(tflops or 0):10.2f} {pct:>7}")
            for side, r in (("netsmith", ns), ("eager", pe), ("compile", pc)):
                if r.get("error"):
                    print(f"    {side}: {r['error']}")
            if n and e:
                worst = min(worst or 1e9, n / e)
print()
print(f"worst ratio vs PyTorch eager: {worst:.2f}x (goal: >= 1.0x on every row)" if worst else "no complete row")
PYEOF
