#!/usr/bin/env bash
# README command 1: installs what is missing, builds, and opens the sample project
# (projects/fashion_mnist_lenet.nsproj) in the desktop console. Without a display (no DISPLAY or
# WAYLAND_DISPLAY, e.g. over ssh) it trains the same project in the terminal with a progress bar.
set -euo pipefail
cd "$(dirname "$0")/.."
./installer/install-deps.sh --app
./installer/build.sh --app
project=projects/fashion_mnist_lenet.nsproj
if [[ -n ${DISPLAY:-}${WAYLAND_DISPLAY:-} && -x build/bin/netsmith ]]; then
  exec ./build/bin/netsmith "$project" "$@"
fi
exec ./build/bin/netsmith-cli train "$project" "$@"
