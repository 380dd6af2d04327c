#!/usr/bin/env bash
# The trainer itself against the benchmark tool (issue 15 item 0): `netsmith-cli train` of each
# sample project, its steady-state samples/s read from its own iteration events (the samples of
# the events after the first two over their time, so primitive creation is not counted: the
# same mean the benchmark takes over its timed steps), against netsmith-bench-train's step on the
# same project, batch and threads. Alternates the two, twice; prints one row per case with both
# runs, trainer / benchmark of the two runs' means and of the two runs' best (on a shared
# machine another process only ever slows a run down, so the best of each side is the steadier
# comparison), and the 1-minute load average when the row ended. About 4 minutes on 2 cores.
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
declare -A samples=([mlp]=25600 [lenet]=7680 [resnet]=1920)

# project MODEL BATCH THREADS -> a copy of the sample with that batch and thread count
project() {
  python3 - "$root" "$1" "$2" "$3" "$out/$1-$2-$3.nsproj" <<'PY'
import json, sys
root, model, batch, threads, path = sys.argv[1:]
p = json.load(open(f"{root}/projects/fashion_mnist_{model}.nsproj"))
p["config"]["batch_size"] = int(batch)
p["parallel"]["threads_per_device"] = int(threads)
p["parallel"]["devices"] = ["cpu:0"]
json.dump(p, open(path, "w"))
PY
  echo "$out/$1-$2-$3.nsproj"
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
  "$bench" --project "$1" --batch "$2" --threads "$3" --iterations $(($4 / $2)) --warmup 5 --per-layer-iterations 0 |
    python3 -c 'import json, sys; print("%.0f" % json.load(sys.stdin)["samples_per_s"])'
}

echo "# netsmith-cli train vs netsmith-bench-train, $(date -u +%FT%TZ), $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-7s %5s %7s  %17s  %17s  %13s  %5s\n" model batch threads "trainer (2 runs)" "bench (2 runs)" "trainer/bench" load
printf "%-7s %5s %7s  %17s  %17s  %6s %6s\n" "" "" "" "" "" mean best
for model in mlp lenet resnet; do
  for batch in 64 256; do
    for threads in 1 2; do
      p=$(project $model $batch $threads)
      n=${samples[$model]}
      t1=$(trainer "$p" $n); b1=$(tool "$p" $batch $threads $n)
      t2=$(trainer "$p" $n); b2=$(tool "$p" $batch $threads $n)
      mean=$(python3 -c "print('%.2f' % (($t1 + $t2) / ($b1 + $b2)))")
      best=$(python3 -c "print('%.2f' % (max($t1, $t2) / max($b1, $b2)))")
      printf "%-7s %5s %7s  %8s %8s  %8s %8s  %6s %6s  %5s\n" $model $batch $threads $t1 $t2 $b1 $b2 $mean $best "$(cut -d' ' -f1 /proc/loadavg)"
    done
  done
done
