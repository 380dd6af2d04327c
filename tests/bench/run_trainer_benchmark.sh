#!/usr/bin/env bash
# The trainer itself against the benchmark tool (issue 15 item 0): `netsmith-cli train` of each
# sample project, its steady-state samples/s read from its own iteration events (the samples of
# the events after the first two over their time, so primitive creation is not counted: the
# same mean the benchmark takes over its timed steps), against netsmith-bench-train's step on the
# same project, batch and threads. Alternates the two, twice; prints one row per case with both
# runs, trainer / benchmark of the two runs' means and of the two runs' best (on a shared
# machine another process only ever slows a run down, so the best of each side is the steadier
# comparison), and the 1-minute load average when the row ended. Every row of run_cpu_benchmark.sh:
# the three samples and the colour CNN on 3x64x64 images (trained here on a generated dataset of
# 1024 images, make_image_dataset.py, as the trainer needs real files), batch 64 and 256, 1 and 2
# threads, float and bfloat16 (bfloat16 rows only where the CPU runs it natively). About 15
# minutes on 2 cores.
#
#   tests/bench/run_trainer_benchmark.sh            # from the repository root, after a build
#   NETSMITH_BUILD=build-bench tests/bench/run_trainer_benchmark.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${NETSMITH_BUILD:-build}
[[ $build = /* ]] || build="$root/$build"
cli="$build/bin/netsmith-cli"
bench="$build/bin/netsmith-bench-train"
for exe in "$cli" "$bench"; do [[ -x $exe ]] || { echo "error: $exe not found: build it first" >&2; exit 1; }; done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Private copies: a concurrent rebuild of the build folder must not swap a program between rows.
cp "$cli" "$bench" "$out/"
cli="$out/$(basename "$cli")"
bench="$out/$(basename "$bench")"
declare -A samples=([mlp]=25600 [lenet]=7680 [resnet]=1920 [colour]=1536)
python3 "$root/tests/bench/make_image_dataset.py" "$out/colour-64" --count 1024 --size 64 --store >/dev/null
precisions="float"
grep -qw avx512_bf16 /proc/cpuinfo && precisions="float bfloat16"

# project MODEL BATCH THREADS PRECISION -> a copy of the model with that batch, threads and precision
project() {
  python3 - "$root" "$out" "$@" <<'PY'
import json, sys
root, out, model, batch, threads, precision = sys.argv[1:]
if model == "colour":
    p = json.load(open(f"{root}/tests/bench/colour_cnn_64.nsproj"))
    p["dataset"]["training"] = {"format": "csv", "csv": f"{out}/colour-64/training.csv"}
    p["dataset"]["validation"] = {"format": "csv", "csv": f"{out}/colour-64/training.csv"}
else:
    p = json.load(open(f"{root}/projects/fashion_mnist_{model}.nsproj"))
p["config"]["batch_size"] = int(batch)
p["config"]["precision"] = precision
p.setdefault("parallel", {})["threads_per_device"] = int(threads)
p["parallel"]["devices"] = ["cpu:0"]
path = f"{out}/{model}-{batch}-{threads}-{precision}.nsproj"
json.dump(p, open(path, "w"))
print(path)
PY
}
trainer() {  # project samples -> steady-state samples/s from the iteration events
  rm -rf "$out/run"
  "$cli" train "$1" --max-epoch 1 --train-samples "$2" --validation-samples 64 --run-dir "$out/run" --events - |
    python3 -c '
import json, sys
ev = [json.loads(l) for l in sys.stdin if l.startswith("{")]
batch = next(e["logical_batch"] for e in ev if e.get("event") == "started")
it = [e for e in ev if e.get("event") == "iteration"]
# Each event covers the iterations since the one before it, at its samples_per_s.
windows = [((b["global_iteration"] - a["global_iteration"]) * batch, b["samples_per_s"]) for a, b in zip(it[1:], it[2:])]
print("%.0f" % (sum(s for s, _ in windows) / sum(s / r for s, r in windows)))'
}
tool() {  # project batch threads samples -> samples/s
  "$bench" --project "$1" --batch "$2" --threads "$3" --precision "$5" --iterations $(($4 / $2)) --warmup 5 --per-layer-iterations 0 |
    python3 -c 'import json, sys; print("%.0f" % json.load(sys.stdin)["samples_per_s"])'
}

echo "# netsmith-cli train vs netsmith-bench-train, $(date -u +%FT%TZ), $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-7s %-9s %5s %7s  %17s  %17s  %13s  %5s\n" model precision batch threads "trainer (2 runs)" "bench (2 runs)" "trainer/bench" load
printf "%-7s %-9s %5s %7s  %17s  %17s  %6s %6s\n" "" "" "" "" "" "" mean best
for model in mlp lenet resnet colour; do
  for precision in $precisions; do
    for batch in 64 256; do
      for threads in 1 2; do
        p=$(project $model $batch $threads $precision)
        n=${samples[$model]}
        (( n >= 6 * batch )) || n=$((6 * batch))  # at least 6 iterations: the events after the first two
        t1=$(trainer "$p" $n); b1=$(tool "$p" $batch $threads $n $precision)
        t2=$(trainer "$p" $n); b2=$(tool "$p" $batch $threads $n $precision)
        mean=$(python3 -c "print('%.2f' % (($t1 + $t2) / ($b1 + $b2)))")
        best=$(python3 -c "print('%.2f' % (max($t1, $t2) / max($b1, $b2)))")
        printf "%-7s %-9s %5s %7s  %8s %8s  %8s %8s  %6s %6s  %5s\n" $model $precision $batch $threads $t1 $t2 $b1 $b2 $mean $best "$(cut -d' ' -f1 /proc/loadavg)"
      done
    done
  done
done
