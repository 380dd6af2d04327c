#!/usr/bin/env bash
# GPU training throughput in one command (issue 29 item 5; docs/performance-gpu.md says what each
# row means and keeps every run's table): `netsmith-gpu-check bench` against PyTorch on the same GPU
# (tests/bench/pytorch_gpu_peer.py) in eager mode and as an expert runs it (torch.compile,
# channels_last, cudnn.benchmark, fused optimizer step; autocast bf16 in bfloat16 rows, TF32 off in
# float rows), on
#   - torchvision's ResNet-18, ResNet-50 and MobileNetV2 at 3x224x224, batch 64 and 256, float and
#     bfloat16: the models exported to ONNX and imported (export_torchvision_models.py prepare),
#     both sides starting from the same weights (Note [Benchmark weights]) with Momentum / SGD;
#   - the LeNet and ResNet samples (Fashion-MNIST 28x28) at batch 256 and 1024, float and bfloat16;
#   - the LeNet sample's 5 epochs end to end: `netsmith-cli train` on the GPU against
#     pytorch_lenet_e2e.py (data on the GPU), each timed from its process start to its end.
# Then one table (samples/s of Netsmith, eager and expert; both ratios; Netsmith's TFLOP/s and % of
# the measured peak; whether the row reached the goal) and one verdict per goal. Sides alternate
# per (model, precision): Netsmith (one process per batch size), eager (one process, both batch
# sizes), expert (one process: one torch.compile with the batch axis dynamic serves both).
# Budget: under 10 minutes on one H200 (BUDGET_S, default 570 s): an expert run that would not fit
# is skipped and says so; the elapsed time is printed at the end.
#
#   tests/bench/run_gpu_benchmark.sh                       # from the repository root, on a GPU machine
#   DEVICE=cpu SMOKE=1 tests/bench/run_gpu_benchmark.sh    # every row tiny on the CPU: the plumbing only
#
# Environment: NETSMITH_GPU_CHECK (default build-cuda/bin/netsmith-gpu-check, else build/bin/...),
# NETSMITH_CLI (default: beside it), PYTHON (PyTorch with CUDA; default python3), MODELS_DIR (the
# prepared NAME.nsproj + NAME.map.json; default BIN/../models as make_carry.sh packs them, else
# prepared now with PREP_PYTHON, default PYTHON), DATASETS (Fashion-MNIST's folder's parent;
# default BIN/../datasets when there, else /usr/share/datasets), RAW_DIR (keep every JSON line
# there), BUDGET_S, SAMPLE_ROWS=0 (leave the LeNet/ResNet sample rows out), E2E=0 (leave the
# end-to-end LeNet out).
set -euo pipefail

T0=$(date +%s.%N)
root=$(cd "$(dirname "$0")/../.." && pwd)
check=${NETSMITH_GPU_CHECK:-}
if [[ -z $check ]]; then
  for c in "$root/build-cuda/bin/netsmith-gpu-check" "$root/build/bin/netsmith-gpu-check"; do
    [[ -x $c ]] && { check=$c; break; }
  done
fi
[[ -n $check && -x $check ]] || { echo "error: netsmith-gpu-check not found (build it, or set NETSMITH_GPU_CHECK)" >&2; exit 1; }
bin=$(cd "$(dirname "$check")" && pwd)
cli=${NETSMITH_CLI:-$bin/netsmith-cli}
py=${PYTHON:-python3}
device=${DEVICE:-cuda:0}
smoke=${SMOKE:-0}
budget=${BUDGET_S:-570}
export NETSMITH_SOURCE_DIR=$root
if [[ -z ${DATASETS:-} && -d $bin/../datasets/fashion-mnist ]]; then export DATASETS=$(cd "$bin/../datasets" && pwd); fi
# A second run on the same machine finds torch.compile's caches warm (docs/performance-gpu.md).
export TORCHINDUCTOR_CACHE_DIR=${TORCHINDUCTOR_CACHE_DIR:-$HOME/.cache/netsmith-bench/inductor}
bench=$root/tests/bench
[[ -x $cli ]] || { echo "error: $cli not found (set NETSMITH_CLI)" >&2; exit 1; }
$py -c 'import torch' 2>/dev/null || { echo "error: $py has no PyTorch (set PYTHON to an interpreter that has it)" >&2; exit 1; }
if [[ $device == cuda* ]]; then
  $py -c 'import torch; assert torch.cuda.is_available()' || { echo "error: $py has no CUDA PyTorch" >&2; exit 1; }
  nsdev=$device
  pydev=$device
  nocompile=()
else
  [[ $device == *:* ]] && nsdev=$device || nsdev=$device:0
  pydev=cpu
  nocompile=(--no-compile)  # torch.compile on a CPU takes minutes a row: the plumbing only
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/models"

# Per row set: batch sizes, timed iterations per batch size, warm-up iterations. On the H200 a
# timed run is ~1-3 s (docs/performance-gpu.md has the arithmetic).
declare -A BATCHES ITERS
if [[ $smoke == 1 ]]; then
  for m in resnet18 resnet50 mobilenet_v2; do BATCHES[$m]=1,2; ITERS[$m]=1,1; done
  for m in lenet resnet; do BATCHES[$m]=8,16; ITERS[$m]=2,2; done
  warm_tv=0 warm_small=1 e2e_args=(--max-epoch 1 --train-samples 1280 --validation-samples 500)
  budget=${BUDGET_S:-3600}  # every row's expert run too: the smoke run checks the plumbing, not the time
else
  BATCHES[resnet18]=64,256 ITERS[resnet18]=24,8
  BATCHES[resnet50]=64,256 ITERS[resnet50]=12,4
  BATCHES[mobilenet_v2]=64,256 ITERS[mobilenet_v2]=24,8
  BATCHES[lenet]=256,1024 ITERS[lenet]=100,40
  BATCHES[resnet]=256,1024 ITERS[resnet]=40,12
  warm_tv=3 warm_small=5 e2e_args=()
fi
models=(resnet18 resnet50 mobilenet_v2)
[[ ${SAMPLE_ROWS:-1} == 1 ]] && models+=(lenet resnet)
precisions=(float bfloat16)

elapsed() { echo "$(date +%s.%N) $T0" | awk '{printf "%.0f", $1 - $2}'; }
echo "# netsmith-gpu-check bench vs PyTorch eager and expert, $(date -u +%FT%TZ), device $device$([[ $smoke == 1 ]] && echo ', SMOKE (tiny rows: not a measurement)')"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader 2>/dev/null || true
$py -c 'import torch; print(f"PyTorch {torch.__version__}, CUDA {torch.version.cuda}, cuDNN {torch.backends.cudnn.version()}")'
"$cli" --version 2>/dev/null | head -1 || true

# The torchvision models: prepared before the carry (make_carry.sh), else here.
models_dir=${MODELS_DIR:-$bin/../models}
if ! ls "$models_dir"/resnet18.map.json >/dev/null 2>&1; then
  echo "# no prepared models in $models_dir: exporting and importing them now with ${PREP_PYTHON:-$py}"
  models_dir=$out/prepared
  ${PREP_PYTHON:-$py} "$bench/export_torchvision_models.py" prepare --cli "$cli" --out "$models_dir" --threads "$(nproc)"
fi
cp "$models_dir"/*.nsproj "$models_dir"/*.map.json "$out/models/"
# Note [Benchmark weights]: Netsmith's copy of the weights PyTorch regenerates in each peer.
$py "$bench/export_torchvision_models.py" write-nsparams --map "$out"/models/*.map.json
echo "# models ready at $(elapsed) s"

if [[ $device == cuda* ]]; then "$check" peak --device "$device" >"$out/peak.json"; else echo '{}' >"$out/peak.json"; fi
cat "$out/peak.json"

project_of() {
  case $1 in
    lenet|resnet) echo "$root/projects/fashion_mnist_$1.nsproj" ;;
    *) echo "$out/models/$1.nsproj" ;;
  esac
}

# The end-to-end LeNet: before the expert runs, so that the budget never drops it.
if [[ ${E2E:-1} == 1 ]]; then
  s=$(date +%s.%N)
  "$cli" train "$root/projects/fashion_mnist_lenet.nsproj" --devices "$nsdev" --run-dir "$out/lenet_run" --quiet \
    "${e2e_args[@]}" >"$out/e2e_ns.txt" 2>&1 || true
  echo "$s $(date +%s.%N)" | awk '{printf "%.3f\n", $2 - $1}' >"$out/e2e_ns_seconds"
  s=$(date +%s.%N)
  $py "$bench/pytorch_lenet_e2e.py" --project "$root/projects/fashion_mnist_lenet.nsproj" --device "$pydev" \
    "${e2e_args[@]}" >"$out/e2e_pt.json" 2>"$out/e2e_pt.err" || true
  echo "$s $(date +%s.%N)" | awk '{printf "%.3f\n", $2 - $1}' >"$out/e2e_pt_seconds"
  echo "# done: LeNet end to end at $(elapsed) s" >&2
fi

# Seconds a (model, precision) group takes without its expert run, to keep in reserve.
reserve_per_group=$([[ $smoke == 1 ]] && echo 5 || echo 25)
groups_left=$(( ${#models[@]} * ${#precisions[@]} ))
for model in "${models[@]}"; do
  project=$(project_of $model)
  warm=$warm_tv; [[ $model == lenet || $model == resnet ]] && warm=$warm_small
  IFS=, read -ra bs <<<"${BATCHES[$model]}"
  IFS=, read -ra its <<<"${ITERS[$model]}"
  for precision in "${precisions[@]}"; do
    groups_left=$((groups_left - 1))
    tag=${model}_$precision
    for i in "${!bs[@]}"; do
      "$check" bench --project "$project" --device "$nsdev" \
        --batch "${bs[$i]}" --precision $precision --iterations "${its[$i]}" --warmup $warm \
        >"$out/ns_${tag}_${bs[$i]}.json" 2>"$out/ns_${tag}_${bs[$i]}.err" || true
    done
    peer=("$py" "$bench/pytorch_gpu_peer.py" --model $model --models-dir "$out/models" --device "$pydev"
          --batch "${BATCHES[$model]}" --iterations "${ITERS[$model]}" --warmup $warm --precision $precision)
    timeout 300 "${peer[@]}" --mode eager >"$out/pt_${tag}_eager.jsonl" 2>"$out/pt_${tag}_eager.err" || true
    left=$(( budget - $(elapsed) - groups_left * reserve_per_group ))
    if (( left >= 30 )); then
      timeout $left "${peer[@]}" --mode expert "${nocompile[@]}" >"$out/pt_${tag}_expert.jsonl" \
        2>"$out/pt_${tag}_expert.err" || echo "{\"error\": \"expert run stopped after ${left} s (the budget's share left to it), or failed: see its stderr\"}" >>"$out/pt_${tag}_expert.jsonl"
    else
      echo "{\"error\": \"skipped: the time budget (BUDGET_S=$budget s) was spent at $(elapsed) s\"}" >"$out/pt_${tag}_expert.jsonl"
    fi
    echo "# done: $tag at $(elapsed) s" >&2
  done
done

[[ -n ${RAW_DIR:-} ]] && { mkdir -p "$RAW_DIR"; cp -r "$out"/*.json "$out"/*.jsonl "$out"/*.err "$out"/*.txt "$out"/*seconds "$out"/lenet_run "$RAW_DIR"/ 2>/dev/null || true; }

$py - "$out" "$smoke" "$(elapsed)" "${models[*]}" \
  "$(for m in "${models[@]}"; do printf '%s=%s ' $m "${BATCHES[$m]}"; done)" <<'PYEOF'
import json, os, sys
out, smoke, elapsed, models = sys.argv[1], sys.argv[2] == "1", sys.argv[3], sys.argv[4].split()
batches = {kv.split("=")[0]: [int(b) for b in kv.split("=")[1].split(",")] for kv in sys.argv[5].split()}
NAMES = {"resnet18": "ResNet-18", "resnet50": "ResNet-50", "mobilenet_v2": "MobileNetV2", "lenet": "LeNet", "resnet": "ResNet (sample)"}

def lines(name):
    try:
        with open(os.path.join(out, name)) as f:
            return [json.loads(l) for l in f.read().splitlines() if l.strip().startswith("{")]
    except Exception as e:
        return [{"error": f"no result ({e})"}]

def by_batch(name, batch):
    rows = lines(name)
    for r in rows:
        if r.get("batch") == batch:
            return r
    return rows[-1] if rows and "batch" not in rows[-1] else {"error": "no result for this batch (see its stderr)"}

peak = lines("peak.json")[0]
print()
if peak.get("fp32"):
    print("measured peak (cuBLAS 8192^3 GEMM of float32 matrices, TFLOP/s): " + ", ".join(f"{k} {v:.1f}" for k, v in peak.items() if isinstance(v, float)))
else:
    print("measured peak: not measured (no GPU)")
print("float: IEEE float32 on both sides (TF32 off in PyTorch); bfloat16: Netsmith bf16 activations (NHWC in image layers) and tensor cores with float32")
print("weights, PyTorch autocast(bfloat16). expert: torch.compile + channels_last + cudnn.benchmark (+ fused optimizer step).")
print("goal per row: netsmith >= 1.5x eager and >= expert; ResNet-18 bfloat16 also >= 35% of the bf16 peak.")
hdr = (f"{'model':<16}{'batch':>6} {'precision':<9}| {'netsmith/s':>10} {'eager/s':>10} {'expert/s':>10} | {'vs eager':>8} {'vs expert':>9} |"
       f" {'TFLOP/s':>8} {'% peak':>7} | {'same net':>9} | goal")
print(hdr)
print("-" * len(hdr))
stats = {"eager": [], "expert": [], "peak": [], "rows": 0, "reached": 0}
notes = []
for model in models:
    for precision in ("float", "bfloat16"):
        for b in batches[model]:
            tag = f"{model}_{precision}"
            ns = lines(f"ns_{tag}_{b}.json")[-1]
            pe, px = by_batch(f"pt_{tag}_eager.jsonl", b), by_batch(f"pt_{tag}_expert.jsonl", b)
            n, e, x = (r.get("samples_per_s") or None for r in (ns, pe, px))  # 0: the run failed
            fmt = lambda v: (f"{v:10.0f}" if v >= 100 else f"{v:10.3g}") if v else f"{'-':>10}"
            ratio = lambda a, c: f"{a / c:.2f}x" if a and c else "-"
            tflops = ns.get("tflops") if n else None
            ref = peak.get("fp32" if precision == "float" else "bf16")
            pct = 100 * tflops / ref if tflops and ref else None
            same = "-"
            if "check_loss" in pe and ns.get("check_loss"):
                rel = abs(ns["check_loss"] - pe["check_loss"]) / abs(pe["check_loss"])
                same = ("yes" if rel <= (1e-4 if precision == "float" else 5e-2) else "NO") + f" {rel:.0e}"
            goal_parts = [n and e and n / e >= 1.5, n and x and n >= x]
            if model == "resnet18" and precision == "bfloat16":
                goal_parts.append(pct is not None and pct >= 35)
            known = all(v is not None for v in (n, e, x)) and (pct is not None or not (model == "resnet18" and precision == "bfloat16"))
            goal = "reached" if known and all(goal_parts) else ("not reached" if known else "unknown")
            stats["rows"] += 1
            stats["reached"] += goal == "reached"
            if n and e: stats["eager"].append((n / e, f"{NAMES[model]} {b} {precision}"))
            if n and x: stats["expert"].append((n / x, f"{NAMES[model]} {b} {precision}"))
            if model == "resnet18" and precision == "bfloat16": stats["peak"].append((pct, b))
            print(f"{NAMES[model]:<16}{b:>6} {precision:<9}| {fmt(n)} {fmt(e)} {fmt(x)} | {ratio(n, e):>8} {ratio(n, x):>9} |"
                  f" {(tflops or 0):8.2f} {(f'{pct:.1f}%' if pct is not None else '-'):>7} | {same:>9} | {goal}")
            for side, r in (("netsmith", ns), ("eager", pe), ("expert", px)):
                if r.get("error"):
                    notes.append(f"    {NAMES[model]} {b} {precision} {side}: {r['error'][:160]}")
for line in dict.fromkeys(notes):
    print(line)
if os.path.exists(os.path.join(out, "e2e_ns_seconds")):
    ns_s = float(open(os.path.join(out, "e2e_ns_seconds")).read())
    pt_s = float(open(os.path.join(out, "e2e_pt_seconds")).read())
    pt = lines("e2e_pt.json")[-1]
    ns_err = None
    try:
        with open(os.path.join(out, "lenet_run", "events.jsonl")) as f:
            ev = [json.loads(l) for l in f if '"event":"epoch"' in l.replace(" ", "")]
        ns_err, ns_epochs = ev[-1]["validation_error"], ev[-1]["epoch"]
    except Exception as e:
        try:
            tail = open(os.path.join(out, "e2e_ns.txt")).read()[-300:]
        except OSError:
            tail = ""
        ns_epochs = f"no epoch events ({e}) {tail}"
    print()
    epochs = pt.get("epochs", "?")
    print(f"LeNet sample end to end ({epochs} epoch{'' if epochs == 1 else 's'} of batch {pt.get('batch', '?')}, process start to end):")
    print(f"  netsmith-cli train: {ns_s:7.1f} s, validation error {ns_err if ns_err is None else f'{ns_err:.4f}'} (epochs: {ns_epochs})")
    print(f"  PyTorch, data on the device: {pt_s:7.1f} s, validation error {pt.get('validation_error', pt.get('error', '?'))}"
          + (f" (data loaded at {pt['load_seconds']:.1f} s)" if 'load_seconds' in pt else ""))
    print(f"  PyTorch / Netsmith time: {pt_s / ns_s:.2f}x" + (" (Netsmith faster)" if pt_s > ns_s else " (PyTorch faster)"))
print()
def worst(v):
    return f"worst {min(v)[0]:.2f}x ({min(v)[1]})" if v else "no complete row"
n_e = sum(r >= 1.5 for r, _ in stats["eager"])
n_x = sum(r >= 1.0 for r, _ in stats["expert"])
print(f"goal >= 1.5x PyTorch eager on every row: {n_e} of {stats['rows']} rows; {worst(stats['eager'])}")
print(f"goal >= expert PyTorch on every row: {n_x} of {stats['rows']} rows; {worst(stats['expert'])}")
print("goal ResNet-18 bfloat16 >= 35% of the bf16 peak: " +
      ", ".join(f"batch {b}: {'-' if p is None else f'{p:.1f}%'}" for p, b in stats["peak"]))
print(f"rows reaching every goal: {stats['reached']} of {stats['rows']}")
print(f"elapsed: {elapsed} s" + ("  (SMOKE: tiny rows on the CPU, plumbing only, not a measurement)" if smoke else ""))
PYEOF