#!/usr/bin/env bash
# CPU training throughput (issue 15 item 2): netsmith-bench-train against tests/bench/pytorch_peer.py
# under two PyTorch builds, run in the same command on the same machine:
#   - Debian's python3-torch (1.13) with /usr/bin/python3;
#   - the current torch wheel from the Python package index, in a virtual environment that
#     tests/bench/setup_torch_venv.sh makes on first use (~/.cache/netsmith-bench/venv; reused).
# Every sample project (MLP, LeNet, ResNet on Fashion-MNIST) and the colour CNN on random 3x64x64
# samples (tests/bench/colour_cnn_64.nsproj, --synthetic: throughput only), batch 64 and 256, 1 and
# 2 threads, fp32 and bf16 (netsmith --precision bfloat16; PyTorch torch.autocast("cpu",
# dtype=torch.bfloat16)). The three programs alternate, two rounds each, so a noisy, shared machine
# hurts all alike. Before the rows it measures the machine's ceilings with netsmith-bench-peak (FMA
# loops and oneDNN's GEMM in fp32 and bf16) so that every GFLOP/s is also a fraction of what the
# machine can do. Prints markdown tables (docs/performance.md holds a run of it). About 15-20
# minutes on 2 cores; each timed run stops after SECONDS_PER_RUN seconds (at least 2 iterations).
#
#   tests/bench/run_cpu_benchmark.sh                 # from the repository root
#   NETSMITH_BUILD=build-bench tests/bench/run_cpu_benchmark.sh
#   SECONDS_PER_RUN=4 tests/bench/run_cpu_benchmark.sh    # longer timed runs
#   MODELS="mlp lenet" PRECISIONS=float tests/bench/run_cpu_benchmark.sh   # a subset
#   BATCHES=64 THREADS=1 tests/bench/run_cpu_benchmark.sh                  # a subset
#   NO_WHEEL=1 tests/bench/run_cpu_benchmark.sh      # Debian's torch only (no venv)
#   RAW_DIR=/tmp/bench-raw tests/bench/run_cpu_benchmark.sh   # keep every run's JSON line there
#
# Builds nothing: expects $NETSMITH_BUILD/bin/netsmith-bench-train and netsmith-bench-peak.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${NETSMITH_BUILD:-build}
[[ $build = /* ]] || build="$root/$build"
bench="$build/bin/netsmith-bench-train"
peak="$build/bin/netsmith-bench-peak"
peer="$root/tests/bench/pytorch_peer.py"
deb_py=/usr/bin/python3  # Debian's interpreter: python3-torch is installed for it only
seconds=${SECONDS_PER_RUN:-1.5}
models=${MODELS:-mlp lenet resnet colour}
precisions=${PRECISIONS:-float bfloat16}
batches=${BATCHES:-64 256}
thread_counts=${THREADS:-1 2}

for b in "$bench" "$peak"; do
  [[ -x $b ]] || { echo "error: $b not found: build the netsmith-bench-train and netsmith-bench-peak targets first" >&2; exit 1; }
done
$deb_py -c 'import torch' 2>/dev/null || { echo "error: $deb_py cannot import torch: install python3-torch" >&2; exit 1; }
sides=(ns deb)
if [[ -z ${NO_WHEEL:-} ]]; then
  if whl_py=$("$root/tests/bench/setup_torch_venv.sh"); then
    sides+=(whl)
  else
    echo "warning: no current torch wheel (setup_torch_venv.sh failed, see above): its columns stay empty" >&2
  fi
fi

if [[ -n ${RAW_DIR:-} ]]; then
  out=$RAW_DIR
  mkdir -p "$out"
else
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
# Private copies of the two binaries (the engine is linked in statically): a rebuild of build/
# while the benchmark runs would otherwise swap the program between rows, or fail a run.
mkdir -p "$out/bin"
cp -p "$bench" "$peak" "$out/bin/"
bench_src=$bench
bench="$out/bin/$(basename "$bench")" peak="$out/bin/$(basename "$peak")"
echo "loadavg_start $(cut -d' ' -f1-3 /proc/loadavg)" > "$out/load"

project() {
  case $1 in
    colour) echo "$root/tests/bench/colour_cnn_64.nsproj --synthetic 1024" ;;
    *) echo "$root/projects/fashion_mnist_$1.nsproj" ;;
  esac
}

# run SIDE MODEL BATCH THREADS PRECISION ROUND: one timed run, its JSON line in a file (or an error).
run() {
  local side=$1 model=$2 batch=$3 threads=$4 prec=$5 round=$6
  local file="$out/${side}_${model}_${batch}_${threads}_${prec}_$round.json" iters=$((100000 / batch))
  local ns_warm=2 pt_warm=3
  [[ $model = colour ]] && ns_warm=1 pt_warm=2  # a colour step is up to seconds long
  local cmd
  case $side in
    # shellcheck disable=SC2046
    ns) cmd=("$bench" --project $(project "$model") --batch "$batch" --threads "$threads" --precision "$prec"
             --iterations "$iters" --warmup "$ns_warm" --seconds "$seconds" --per-layer-iterations 0) ;;
    deb) cmd=("$deb_py" "$peer") ;;
    whl) cmd=("$whl_py" "$peer") ;;
  esac
  [[ $side = ns ]] || cmd+=(--model "$model" --batch "$batch" --threads "$threads" --precision "$prec"
                            --iterations "$iters" --warmup "$pt_warm" --seconds "$seconds")
  if ! OMP_NUM_THREADS=$threads "${cmd[@]}" > "$file" 2> "$file.err"; then
    python3 -c 'import json,sys; print(json.dumps({"error": open(sys.argv[1]).read().strip()[-300:]}))' "$file.err" > "$file"
  fi
}

start=$(date +%s)
"$peak" --threads 1,2 --seconds 1 > "$out/peak.json"
for model in $models; do
  for prec in $precisions; do
    for batch in $batches; do
      for threads in $thread_counts; do
        for round in 1 2; do
          for side in "${sides[@]}"; do run $side $model $batch $threads $prec $round; done
        done
        echo "# done: $model $prec batch $batch threads $threads ($(($(date +%s) - start)) s, load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
      done
    done
  done
done
echo "loadavg_end $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load"
echo "elapsed_s $(($(date +%s) - start))" >> "$out/load"

python3 - "$out" "$bench_src" "$seconds" "$models" "$precisions" "${sides[*]}" "$batches" "$thread_counts" <<'EOF'
import json, os, statistics, subprocess, sys
out, bench, seconds, models, precisions, sides, batches, thread_counts = sys.argv[1:9]
models, precisions, sides = models.split(), precisions.split(), sides.split()
batches, thread_counts = [int(b) for b in batches.split()], [int(t) for t in thread_counts.split()]
load = dict(l.split(" ", 1) for l in open(os.path.join(out, "load")).read().splitlines())
peak = json.load(open(os.path.join(out, "peak.json")))

def load_run(side, model, batch, threads, prec, rnd):
    path = os.path.join(out, f"{side}_{model}_{batch}_{threads}_{prec}_{rnd}.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)

cpu = subprocess.run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-"], capture_output=True, text=True).stdout.strip()
flags = open("/proc/cpuinfo").read().split("flags", 1)[1].split("\n", 1)[0].split()
isa = [f for f in ("avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16", "amx_bf16", "amx_tile") if f in flags]
print(f"# CPU training throughput: netsmith vs PyTorch ({' and '.join({'deb': 'Debian torch', 'whl': 'current wheel'}[s] for s in sides if s != 'ns')})")
print()
print(f"- cpu: {cpu}, {os.cpu_count()} cores; ISA: {' '.join(isa)}")
head = subprocess.run(["git", "-C", os.path.dirname(os.path.abspath(bench)), "log", "-1", "--format=%h %cI"], capture_output=True, text=True).stdout.strip()
import datetime
built = datetime.datetime.fromtimestamp(os.path.getmtime(bench), datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
print(f"- netsmith-bench-train built {built}; repository at {head or 'unknown'}")
print(f"- load average (1, 5, 15 min): at the start {load['loadavg_start']}, at the end {load['loadavg_end']}; "
      f"{int(load['elapsed_s']) // 60} min {int(load['elapsed_s']) % 60} s; timed runs of {seconds} s (at least 2 iterations)")

# Ceilings.
print()
print(f"## Ceilings (netsmith-bench-peak, GFLOP/s, best / median of the repeats; oneDNN {peak['onednn']}, GEMM {peak['gemm_n']}^3)")
print()
print("| threads | FMA loop fp32 AVX-512 | FMA loop fp32 AVX2 | vdpbf16ps loop bf16 | oneDNN GEMM fp32 | oneDNN GEMM bf16 (f32 out) |")
print("|---:|---:|---:|---:|---:|---:|")
def fig(row, key):
    v = row.get(key)
    return f"{v['best']:.0f} / {v['median']:.0f}" if isinstance(v, dict) else str(v or "-")
for t in (1, 2):
    row = peak.get(f"threads_{t}", {})
    print(f"| {t} | {fig(row, 'fma_avx512')} | {fig(row, 'fma_avx2')} | {fig(row, 'dpbf16_avx512')} | {fig(row, 'gemm_f32')} | {fig(row, 'gemm_bf16')} |")
def ceiling(threads, prec):
    row = peak.get(f"threads_{threads}", {})
    v = row.get("gemm_bf16" if prec == "bfloat16" else "gemm_f32")
    return v["median"] if isinstance(v, dict) else None

# Rows.
names = {"ns": "netsmith", "deb": "Debian torch", "whl": "wheel torch"}
print()
print("## Throughput (samples/s, rounds 1 and 2)")
print()
hdr = ["model", "batch", "thr", "prec"] + [f"{names[s]} r1 / r2" for s in sides] + \
      [f"ns / {'Debian' if s == 'deb' else 'wheel'}" for s in sides if s != "ns"] + \
      ["GFLOP/s " + " / ".join({"ns": "ns", "deb": "deb", "whl": "whl"}[s] for s in sides),
       "% of GEMM ceiling " + " / ".join({"ns": "ns", "deb": "deb", "whl": "whl"}[s] for s in sides), "2×?"]
print("| " + " | ".join(hdr) + " |")
print("|" + "|".join(["---"] * 4 + ["---:"] * (len(hdr) - 5) + [":---:"]) + "|")
errors, macs_of, torch_info, reached, total = [], {}, {}, 0, 0
for model in models:
    for prec in precisions:
        for batch in batches:
            for threads in thread_counts:
                cells, med = [], {}
                for s in sides:
                    runs = [load_run(s, model, batch, threads, prec, r) for r in (1, 2)]
                    ok = [r for r in runs if r and "error" not in r]
                    for r in runs:
                        if r and "error" in r:
                            errors.append(f"{names[s]} {model} {prec} batch {batch} threads {threads}: {r['error']}")
                    if s == "ns" and ok:
                        macs_of[model] = ok[0]["macs_per_sample"]
                    if s != "ns" and ok:
                        torch_info[s] = ok[0]
                    cells.append(" / ".join(f"{r['samples_per_s']:,.0f}" if r and "error" not in r else "failed" for r in runs))
                    med[s] = statistics.median(r["samples_per_s"] for r in ok) if ok else None
                ratios = []
                for s in sides[1:]:
                    ratios.append(med["ns"] / med[s] if med.get("ns") and med.get(s) else None)
                flop = 6 * macs_of.get(model, 0) / 1e9
                gf = [med[s] * flop if med.get(s) and flop else None for s in sides]
                c = ceiling(threads, prec)
                frac = [g / c if g and c else None for g in gf]
                goal = all(r is not None and r >= 2 for r in ratios) and bool(ratios)
                total += 1
                reached += goal
                f = lambda v, fmt: "-" if v is None else format(v, fmt)
                print(f"| {model} | {batch} | {threads} | {'bf16' if prec == 'bfloat16' else 'fp32'} | " + " | ".join(cells) + " | "
                      + " | ".join(f(r, ".2f") for r in ratios) + " | " + " / ".join(f(g, ".1f") for g in gf) + " | "
                      + " / ".join(f(100 * x, ".0f") for x in frac) + f" | {'yes' if goal else 'no'} |")
print()
print(f"2× every PyTorch on {reached} of {total} rows. ns / X = median netsmith samples/s over the median of X's two rounds "
      "(> 1: netsmith faster). GFLOP/s = medians × 6 × forward multiply-adds per sample (forward + two backward products; "
      "the op registry's count, netsmith-bench-train's macs_per_sample); % of the oneDNN GEMM ceiling (median) at the same "
      "thread count and precision (fp32 rows: GEMM fp32; bf16 rows: GEMM bf16).")
print()
print("Forward multiply-adds per sample (Graph::multiplyAdds): " + ", ".join(f"{m} {n:,}" for m, n in macs_of.items()))
for s, info in torch_info.items():
    print(f"\n{names[s]}: torch {info['torch']} ({info.get('python')}), CPU capability {info.get('cpu_capability')}, "
          f"mkldnn {info['mkldnn_available']}, mkl {info['mkl_available']}, BLAS mapped: {', '.join(info['blas_libs']) or 'none (linked in)'}")
    for line in info["torch_config"]:
        print(f"    {line}")
libs = [l.split("=>")[-1].split("(")[0].strip() for l in subprocess.run(["ldd", bench], capture_output=True, text=True).stdout.splitlines()
        if any(k in l for k in ("dnnl", "blas", "gomp", "mkl"))]
print(f"\nnetsmith links: {', '.join(os.path.realpath(l) for l in libs)}")
if errors:
    print("\nFailed runs:")
    for e in errors:
        print(f"- {e}")
EOF
