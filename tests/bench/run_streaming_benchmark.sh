#!/usr/bin/env bash
# Data larger than memory (issue 16 item 3): a colour dataset of COUNT (default 100,000) 3x64x64
# images trained from its packed sample store (streamed: Note [Sample storage], [Sample feed])
# against the same images held in memory (the same CSV without its store: its PNGs are decoded
# into bytes at load). The colour CNN of tests/bench/colour_cnn_64.nsproj, batch 64, one worker of
# 2 threads, 1 epoch over the first TRAIN samples (default 20,000) of the whole dataset. farm-bench
# alternates the two (A = streamed, B = in memory), twice, and prints each run's wall time and
# peak memory; this script adds each run's training samples/s from its epoch event. The
# dataset's size as float32 is printed for the memory rule. About 10 minutes on 2 cores.
#
#   tests/bench/run_streaming_benchmark.sh              # from the repository root, after a build
#   COUNT=20000 TRAIN=5000 tests/bench/run_streaming_benchmark.sh   # a quick look
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${NETSMITH_BUILD:-build}
[[ $build = /* ]] || build="$root/$build"
count=${COUNT:-100000}
train=${TRAIN:-20000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cp "$build/bin/netsmith-cli" "$out/"
cli="$out/netsmith-cli"

echo "# streamed store vs in memory, $(date -u +%FT%TZ), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, load: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$root/tests/bench/make_image_dataset.py" "$out/stream" --count "$count" --store
python3 "$root/tests/bench/make_image_dataset.py" "$out/memory" --count "$count" --png
python3 - "$root" "$out" <<'PY'
import json, sys
root, out = sys.argv[1:]
for kind in ("stream", "memory"):
    p = json.load(open(f"{root}/tests/bench/colour_cnn_64.nsproj"))
    p["dataset"]["training"] = {"format": "csv", "csv": f"{out}/{kind}/training.csv"}
    p["dataset"].pop("validation", None)
    p["config"].update({"batch_size": 64, "max_epoch": 1})
    p["parallel"].update({"devices": ["cpu:0"], "threads_per_device": 2})
    json.dump(p, open(f"{out}/{kind}.nsproj", "w"))
PY
echo "dataset: $count samples of 3x64x64: $(du -sh "$out/stream/training.nsstore" | cut -f1) as a store," \
  "$(python3 -c "print('%.1f GB' % ($count * 3 * 64 * 64 * 4 / 1e9))") as float32"
"$cli" train "$out/stream.nsproj" --dry-run | grep -E '^(Data|Memory):'
"$cli" train "$out/memory.nsproj" --dry-run | grep -E '^(Data|Memory):'

run() { echo "sh -c 'exec $cli train $out/$1.nsproj --train-samples $train >>$out/$1.log 2>&1'"; }
farm-bench -n 2 --warmup 0 --timeout 3000 --vs "$(run memory)" -- sh -c "exec $cli train $out/stream.nsproj --train-samples $train >>$out/stream.log 2>&1"
for kind in stream memory; do
  python3 - "$out/$kind.runs" "$kind" <<'PY'
import glob, json, sys
rates = []
for events in sorted(glob.glob(sys.argv[1] + "/*/events.jsonl")):
    for line in open(events):
        e = json.loads(line)
        if e.get("event") == "epoch":
            s = e["scaling"]
            rates.append("%.0f samples/s (data %.1f%% of the step)" % (s["samples_per_s"], 100 * s.get("data_share", 0)))
print("%-6s training: %s" % (sys.argv[2], "; ".join(rates)))
PY
done
