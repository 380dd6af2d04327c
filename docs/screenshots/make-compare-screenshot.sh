#!/usr/bin/env bash
# The run history's Compare window (docs/gui.md, "Run history") on two real runs of the MLP sample:
# one as it ships (Momentum, lr 0.01), then one with lr 0.02 and its second Affine at 256 outputs,
# each 4 epochs of 6,000 samples on one CPU worker; then the GUI, under Xvfb at 1366x768, grabs
# the Compare window of the two (its hidden --screenshot compare option, gui/app/application.cpp).
# Writes docs/screenshots/compare-1366x768.png. Needs xvfb-run.
#
#   docs/screenshots/make-compare-screenshot.sh [BUILD_DIR]     # from the repository root; default build
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
gui="$build/bin/netsmith"
cli="$build/bin/netsmith-cli"
[[ -x $gui && -x $cli ]] || { echo "error: $gui or $cli not found: build them first" >&2; exit 1; }
out="$root/docs/screenshots"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$root/projects/fashion_mnist_mlp.nsproj" "$work/mlp.nsproj"
limits=(--max-epoch 4 --train-samples 6000 --validation-samples 2000 --quiet)
"$cli" train "$work/mlp.nsproj" "${limits[@]}"
sleep 1  # run folders are named by the second they start
python3 - "$work/mlp.nsproj" <<'PY'
import json, sys
path = sys.argv[1]
project = json.load(open(path))
project["optimizer"]["lr"] = 0.02
for node in project["network"]["nodes"]:
    if node["id"] == "fc2":
        node["params"]["n_outmaps"] = [256]
json.dump(project, open(path, "w"), indent=2)
PY
"$cli" train "$work/mlp.nsproj" "${limits[@]}"
size=1366x768
xvfb-run -a -s "-screen 0 ${size}x24" "$gui" "$work/mlp.nsproj" --window-size "$size" \
  --screenshot "compare=$out/compare-$size.png" 2>&1 | grep -v -e XDG_RUNTIME_DIR -e propagateSizeHints || true
ls -l "$out/compare-$size.png"
