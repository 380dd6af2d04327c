#!/usr/bin/env bash
# MPI overhead on one machine: LeNet trained by 2 processes × 1 CPU worker (mpirun) against
# 1 process × 2 CPU workers (threads), same project, same logical batch, 1 thread per worker.
# Prints samples/s of each (median of the runs, from the epoch events' scaling summary), the ratio,
# and the per-iteration communication share. Alternates the two (A, B, A, B, ...) so that a noisy,
# shared machine hurts both alike.
#
#   tests/bench/run_mpi_benchmark.sh                 # from the repository root; build/ by default
#   NETSMITH_BUILD=build-x REPEATS=5 tests/bench/run_mpi_benchmark.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${NETSMITH_BUILD:-build}
[[ $build = /* ]] || build="$root/$build"
cli="$build/bin/netsmith-cli"
repeats=${REPEATS:-3}
samples=${SAMPLES:-12800}
[[ -x $cli ]] || { echo "error: $cli not found: build netsmith-cli first" >&2; exit 1; }
command -v mpirun >/dev/null || { echo "error: mpirun not found: install Debian's openmpi-bin" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
python3 - "$root/projects/fashion_mnist_lenet.nsproj" "$out/lenet.nsproj" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["parallel"]["threads_per_device"] = 1
json.dump(p, open(sys.argv[2], "w"))
PY

echo "# netsmith MPI overhead, $(date -u +%FT%TZ), $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# LeNet, batch 64 per device, logical batch 128, $samples samples per run, 1 thread per worker, $repeats runs each"
args=(train "$out/lenet.nsproj" --max-epoch 1 --train-samples "$samples" --validation-samples 256 --events -)
# samples/s and communication share of the epoch, from the epoch event's scaling summary.
scaling() { grep '"event":"epoch"' | python3 -c 'import json,sys; s=json.loads(sys.stdin.readline())["scaling"]; print(s["samples_per_s"], s["communication_share"])'; }
for i in $(seq "$repeats"); do
  mpirun --oversubscribe --bind-to none -np 2 "$cli" "${args[@]}" --devices cpu:0 --run-dir "$out/mpi$i" | scaling >> "$out/mpi.txt"
  "$cli" "${args[@]}" --devices cpu:0,cpu:1 --run-dir "$out/threads$i" | scaling >> "$out/threads.txt"
done
python3 - "$out/mpi.txt" "$out/threads.txt" <<'PY'
import statistics, sys
def load(path):
    rows = [tuple(map(float, l.split())) for l in open(path) if l.strip()]
    return statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows), rows
mpi, mpi_share, mpi_rows = load(sys.argv[1])
thr, thr_share, thr_rows = load(sys.argv[2])
print(f"{'configuration':<34} {'samples/s (median)':>18} {'comm. share':>12}   runs")
print(f"{'2 processes x 1 worker (mpirun)':<34} {mpi:>18.0f} {mpi_share:>12.3f}   " + " ".join(f"{r[0]:.0f}" for r in mpi_rows))
print(f"{'1 process x 2 workers (threads)':<34} {thr:>18.0f} {thr_share:>12.3f}   " + " ".join(f"{r[0]:.0f}" for r in thr_rows))
print(f"ratio mpirun / threads: {mpi / thr:.3f}")
PY
