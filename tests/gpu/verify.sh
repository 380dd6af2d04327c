#!/usr/bin/env bash
# One command for the day a GPU is there (issue 13): every GPU check, written to one report.
#
#   tests/gpu/verify.sh [--bin DIR] [--report FILE] [--samples N]
#
# Runs, each step recorded in the report with its exit status and output:
#   1. the machine: nvidia-smi, the GPUs netsmith-cli sees;
#   2. netsmith-gpu-check all (every op against the CPU in float, LeNet and ResNet against the CPU
#      step by step, NCCL on every GPU with abort, the trainer on cuda:0 against every GPU);
#   3. netsmith-gpu-check ops in half and in bfloat16;
#   4. the Qt tests labelled gpu, where this checkout has a build with them (build/ or build-cuda/);
#   5. the three sample projects in reproducible mode, one epoch of N samples, on cuda:0 twice and
#      on every GPU: parameters_sha256 compared (cuda:0 twice must be equal; every GPU against
#      cuda:0 must be equal too: reproducible mode adds the GPUs' sums in the reduction tree's
#      order, Note [Tree order over NCCL]);
#   6. LeNet in half and in bfloat16 on every GPU (one epoch);
#   7. an MLP run stopped mid-epoch (a stop line) and resumed: the parameters_sha256 of the run never stopped;
#   8. compute-sanitizer where it is found: memcheck over the op checks and a short LeNet training,
#      racecheck and synccheck over two LeNet steps;
#   9. the GPU benchmark against PyTorch (tests/bench/run_gpu_benchmark.sh) when torch imports.
# Binaries: --bin, else build-cuda/gpu-carry/bin (tests/gpu/make_carry.sh), build-cuda/bin or
# build/bin, whichever has netsmith-cli and netsmith-gpu-check; if none has, it builds build/
# (installer/build.sh, which needs this project's Debian packages). Exit status: 0 when every
# required step passed, 1 otherwise, 77 when there is no usable GPU.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
bin=""
report="${OUT:-$root}/gpu-verify-report.txt"
samples=6000
while (($#)); do
  case $1 in
    --bin) bin=$2; shift 2 ;;
    --report) report=$2; shift 2 ;;
    --samples) samples=$2; shift 2 ;;
    *) echo "usage: tests/gpu/verify.sh [--bin DIR] [--report FILE] [--samples N]" >&2; exit 2 ;;
  esac
done
if [[ -z $bin ]]; then
  for candidate in build-cuda/gpu-carry/bin build-cuda/bin build/bin; do
    if [[ -x $candidate/netsmith-cli && -x $candidate/netsmith-gpu-check ]]; then bin=$candidate; break; fi
  done
fi
if [[ -z $bin ]]; then
  echo "netsmith: no netsmith-cli and netsmith-gpu-check found; building build/" >&2
  ./installer/build.sh || { echo "netsmith: the build failed" >&2; exit 1; }
  bin=build/bin
fi
bin=$(cd "$bin" && pwd)
# The carried libraries (make_carry.sh) and, on a machine whose CUDA libraries come with PyTorch,
# the wheels' library folders.
if [[ -d $bin/../lib ]]; then export LD_LIBRARY_PATH="$bin/../lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; fi
wheels=$(python3 -c 'import site,glob,os;print(":".join(sorted({os.path.dirname(p) for p in glob.glob(site.getsitepackages()[0]+"/nvidia/**/lib*.so*",recursive=True)})))' 2>/dev/null || true)
if [[ -n $wheels ]]; then export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$wheels"; fi
if [[ -d $bin/../datasets && -z ${DATASETS:-} ]]; then export DATASETS=$(cd "$bin/../datasets" && pwd); fi

mkdir -p "$(dirname "$report")"
: >"$report"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
say() { echo "$*" | tee -a "$report"; }
# step NAME required|optional COMMAND...: runs it, its output into the report, a one-line verdict.
step() {
  local name=$1 kind=$2
  shift 2
  say ""
  say "=== $name"
  local start=$SECONDS
  "$@" >>"$report" 2>&1
  local rc=$?
  if ((rc == 0)); then say "--- $name: ok ($((SECONDS - start)) s)"
  else
    say "--- $name: FAILED (exit $rc, $((SECONDS - start)) s)${kind:+ [$kind]}"
    [[ $kind == required ]] && failed=1
  fi
  return $rc
}

say "netsmith GPU verification — $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
say "binaries: $bin"
step "machine" optional nvidia-smi
# Note [CUDA architectures]: the GPU code the binaries carry (a build with no SASS for this GPU runs
# its kernels from the compute_75 PTX, compiled by the driver: how an RTX 4090 or an A100 runs a
# developer build made on a machine without a GPU).
"$bin/netsmith-cli" --version | tee -a "$report"
"$bin/netsmith-cli" devices --json >"$work/devices.json" 2>>"$report"
gpus=$(python3 -c 'import json,sys;print(",".join(d["id"] for d in json.load(open(sys.argv[1]))["devices"] if d.get("kind")=="cuda"))' "$work/devices.json" 2>/dev/null)
say "GPUs: ${gpus:-none}"
if [[ -z $gpus ]]; then
  say "no usable GPU: nothing to verify"
  exit 77
fi

step "netsmith-gpu-check all" required "$bin/netsmith-gpu-check" all --device cuda:0
for precision in half bfloat16; do
  step "netsmith-gpu-check ops --precision $precision" required "$bin/netsmith-gpu-check" ops --device cuda:0 --precision "$precision"
done
for build in build-cuda build; do
  if [[ -f $build/CTestTestfile.cmake ]] && (cd "$build" && ctest -N -L '^gpu$' | grep -q 'Total Tests: [1-9]'); then
    step "Qt tests labelled gpu ($build)" required ctest --test-dir "$build" -L '^gpu$' --output-on-failure
    break
  fi
done

# A copy of a sample with its precision and mode set and the logical batch kept on any GPU count
# (its datasets are ${DATASETS} paths, so the copy may live anywhere).
copy() {  # sample precision deterministic(0|1)
  local out="$work/$1-$2-$3.nsproj"
  python3 - "$1" "$2" "$3" "$out" <<'PY'
import json, sys
sample, precision, deterministic, out = sys.argv[1:]
p = json.load(open(f"projects/{sample}.nsproj"))
p.setdefault("config", {})["precision"] = precision
p["config"]["deterministic"] = deterministic == "1"
p.setdefault("parallel", {})["lr_policy"] = "keep_logical_batch"
json.dump(p, open(out, "w"), indent=2)
PY
  echo "$out"
}
# train PROJECT DEVICES NAME: one epoch of $samples samples; output in $work/NAME.out.
train() {
  "$bin/netsmith-cli" train "$1" --devices "$2" --max-epoch 1 --train-samples "$samples" --validation-samples 1000 \
    --run-dir "$work/$3" >"$work/$3.out" 2>&1
}
hash_of() { awk '/^parameters_sha256/ {print $2}' "$work/$1.out" | tail -1; }

for sample in fashion_mnist_mlp fashion_mnist_lenet fashion_mnist_resnet; do
  project=$(copy "$sample" float 1)
  say ""
  say "=== $sample, reproducible mode: cuda:0 twice, then $gpus"
  train "$project" cuda:0 "$sample-a"
  train "$project" cuda:0 "$sample-b"
  train "$project" "$gpus" "$sample-all"
  cat "$work/$sample-a.out" "$work/$sample-all.out" >>"$report"
  a=$(hash_of "$sample-a") b=$(hash_of "$sample-b") all=$(hash_of "$sample-all")
  say "parameters_sha256: cuda:0 ${a:-none} | cuda:0 again ${b:-none} | $gpus ${all:-none}"
  if [[ -z $a || $a != "$b" ]]; then say "--- $sample reproducible on cuda:0: FAILED [required]"; failed=1
  else say "--- $sample reproducible on cuda:0: ok"; fi
  if [[ -n $all && $all == "$a" ]]; then say "--- $sample on $gpus: the same parameters_sha256 as on cuda:0"
  else say "--- $sample on $gpus: FAILED (reproducible mode promises cuda:0's parameters_sha256) [required]"; failed=1; fi
done

# Note [Memory before launch]: each sample's estimate on cuda:0 beside the GPU's measured peak
# (the CUDA context is an assumption until this runs on a real GPU). Informational.
say ""
say "=== memory estimate against the measured peak, cuda:0"
for sample in fashion_mnist_mlp fashion_mnist_lenet fashion_mnist_resnet; do
  python3 - "$work/$sample-a/events.jsonl" "$sample" <<'PY' 2>&1 | tee -a "$report"
import json, sys
events = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
started = next(e for e in events if e["event"] == "started")
finished = next(e for e in events if e["event"] == "finished")
peaks = {g["id"]: g.get("peak_memory_mb") for g in finished.get("gpus", [])}
for m in started.get("memory", []):
    peak = peaks.get(m["device"])
    ratio = f"{(m['total_bytes'] >> 20) / peak:.3f}" if peak else "n/a"
    print(f"{sys.argv[2]} {m['device']}: estimate {m['total_bytes'] >> 20} MiB (context {m['base_bytes'] >> 20} MiB, "
          f"workspace {m['workspace_bytes'] >> 20} MiB), measured peak {peak} MiB, estimate/peak {ratio}")
PY
done

# A run stopped mid-epoch (the console's Stop: a "stop" line after a third of the epoch) and
# resumed must end as the run never stopped: the MLP in reproducible mode, against its run above.
project=$(copy fashion_mnist_mlp float 1)
say ""
say "=== MLP stopped mid-epoch and resumed on $gpus"
python3 - "$bin/netsmith-cli" "$project" "$gpus" "$samples" "$work/mlp-stopped" >"$work/mlp-stopped.out" 2>&1 <<'PY'
import json, subprocess, sys
cli, project, devices, samples, run_dir = sys.argv[1:]
p = subprocess.Popen([cli, "train", project, "--devices", devices, "--max-epoch", "1", "--train-samples", samples,
                      "--validation-samples", "1000", "--run-dir", run_dir, "--events", "-"],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
stop_at = max(2, int(samples) // 64 // 3)
for line in p.stdout:
    e = json.loads(line) if line.startswith("{") else {}
    if e.get("event") == "iteration" and e.get("global_iteration", 0) >= stop_at:
        print("stop sent after global iteration", e["global_iteration"])
        p.stdin.write("stop\n")
        p.stdin.flush()
        break
p.communicate()
print("exit status", p.returncode)
PY
"$bin/netsmith-cli" train --resume "$work/mlp-stopped" --devices "$gpus" >"$work/mlp-resumed.out" 2>&1
cat "$work/mlp-stopped.out" "$work/mlp-resumed.out" >>"$report"
resumed=$(hash_of mlp-resumed) reference=$(hash_of fashion_mnist_mlp-all)
say "parameters_sha256: resumed ${resumed:-none} | never stopped on $gpus ${reference:-none}"
if [[ -n $resumed && $resumed == "$reference" ]]; then say "--- MLP stopped and resumed: ok"
else say "--- MLP stopped and resumed: FAILED [required]"; failed=1; fi

for precision in half bfloat16; do
  project=$(copy fashion_mnist_lenet "$precision" 0)
  step "LeNet in $precision on $gpus" required "$bin/netsmith-cli" train "$project" --devices "$gpus" --max-epoch 1 \
    --train-samples "$samples" --validation-samples 1000 --run-dir "$work/lenet-$precision"
done

# compute-sanitizer (memcheck, racecheck, synccheck) over the op checks and a short training, where
# it is found: on PATH, in the toolkit, or unpacked beside the binaries by make_carry.sh.
sanitizer=$(command -v compute-sanitizer || true)
for candidate in /usr/local/cuda/bin/compute-sanitizer "$bin/../compute-sanitizer/compute-sanitizer"; do
  [[ -z $sanitizer && -x $candidate ]] && sanitizer=$candidate
done
# Each pass is bounded (SANITIZER_TIMEOUT seconds, default 300): instrumented kernels run 10-100x slower.
if [[ -n $sanitizer ]]; then
  limit=${SANITIZER_TIMEOUT:-300}
  # --report-api-errors no: NCCL's start-up asks for kernels of other architectures
  # (cudaErrorNoKernelImageForDevice from cudaFuncGetAttributes, seen on the H200) and clears the
  # error; every CUDA call of Netsmith's own is checked by the code itself.
  step "compute-sanitizer memcheck: op checks" required timeout "$limit" "$sanitizer" --tool memcheck \
    --report-api-errors no --error-exitcode 99 "$bin/netsmith-gpu-check" ops --device cuda:0
  for tool in racecheck synccheck; do
    step "compute-sanitizer $tool: LeNet, 2 steps against the CPU" required timeout "$limit" "$sanitizer" \
      --tool "$tool" --error-exitcode 99 "$bin/netsmith-gpu-check" train --device cuda:0 --steps 2
  done
  step "compute-sanitizer memcheck: LeNet, 10 iterations of netsmith-cli train on cuda:0" required timeout "$limit" \
    "$sanitizer" --tool memcheck --report-api-errors no --error-exitcode 99 "$bin/netsmith-cli" train projects/fashion_mnist_lenet.nsproj \
    --devices cuda:0 --max-epoch 1 --train-samples 640 --validation-samples 128 --run-dir "$work/sanitized"
else
  say ""
  say "=== compute-sanitizer: skipped (not on PATH, in /usr/local/cuda/bin or beside the binaries)"
fi

if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  step "GPU benchmark against PyTorch" optional env NETSMITH_GPU_CHECK="$bin/netsmith-gpu-check" tests/bench/run_gpu_benchmark.sh
else
  say ""
  say "=== GPU benchmark: skipped (PyTorch with CUDA does not import here)"
fi

say ""
if ((failed)); then say "SOME GPU CHECKS FAILED — report: $report"; else say "all GPU checks passed — report: $report"; fi
exit $failed
