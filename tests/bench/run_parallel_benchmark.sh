#!/usr/bin/env bash
# Data-parallel training throughput (issue 3): netsmith-bench-parallel trains the MLP and LeNet
# samples on the real Fashion-MNIST through the engine's own trainer (runTraining) in three
# configurations — A = 2 workers × 1 thread, B = 1 worker × 1 thread, C = 1 worker × 2 threads —
# at per-device batch 64 and 256, interleaved A,B,C,A,B,C, and prints samples/s, A/B and A/C,
# FLOPs and GFLOP/s, where A's time goes, and the cores the runs actually got. Then
# netsmith-bench-allreduce (2 ranks) gives the all-reduce's bandwidth against memcpy.
# Builds nothing: expects $NETSMITH_BUILD/bin/netsmith-bench-parallel and netsmith-bench-allreduce
# (default build/). About 3-4 minutes on 2 cores.
#
#   tests/bench/run_parallel_benchmark.sh                          # from the repository root
#   NETSMITH_BUILD=build-bench tests/bench/run_parallel_benchmark.sh
#   SECONDS_PER_RUN=8 REPEATS=3 tests/bench/run_parallel_benchmark.sh   # longer, steadier
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${NETSMITH_BUILD:-build}
[[ $build = /* ]] || build="$root/$build"
parallel="$build/bin/netsmith-bench-parallel"
allreduce="$build/bin/netsmith-bench-allreduce"
seconds=${SECONDS_PER_RUN:-4}  # B's time per measurement; A takes about half
repeats=${REPEATS:-3}

for exe in "$parallel" "$allreduce"; do
  [[ -x $exe ]] || { echo "error: $exe not found: build it first, e.g." \
    "ninja -C $(basename "$build") netsmith-bench-parallel netsmith-bench-allreduce" >&2; exit 1; }
done

# The machine is shared: say what else was running, so a reader can judge the figures.
header() {
  echo "# $1 $(date -u +%FT%TZ), $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
}
header "netsmith data-parallel benchmark,"
echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
# top's second sample covers the last second (its first is the average since boot).
echo "# busiest processes over 1 s before the start (%CPU): $(top -b -n 2 -d 1 -w 256 -o %CPU |
  awk '/^top -/ {n++} n == 2 && $1 ~ /^[0-9]+$/ && k < 3 {printf "%s %s; ", $12, $9; k++}')"
echo

# OMP_NUM_THREADS would not matter (each worker sets its own count from threads_per_device), but
# unset it so nothing in the environment looks like it does.
env -u OMP_NUM_THREADS "$parallel" \
  --project "$root/projects/fashion_mnist_mlp.nsproj" \
  --project "$root/projects/fashion_mnist_lenet.nsproj" \
  --batches 64,256 --repeats "$repeats" --seconds "$seconds"

echo "# all-reduce vs memcpy (netsmith-bench-allreduce --ranks 2), load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"$allreduce" --ranks 2
echo
header "finished"
