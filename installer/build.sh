#!/usr/bin/env bash
# Configures and builds Netsmith into build/ (Release, Ninja, ccache when present).
# Usage: installer/build.sh [--app] [extra cmake arguments]
#   --app   only what README's first command runs: netsmith-cli and the console (no tests)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
targets=()
if [[ ${1:-} == --app ]]; then
  shift
  targets=(--target netsmith-cli)
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
# The console is a target only where Qt 6 and QCustomPlot were found (gui/CMakeLists.txt).
if [[ ${#targets[@]} -gt 0 ]] && grep -q '^build netsmith:' build/build.ninja; then
  targets+=(netsmith)
fi
cmake --build build --parallel "$(nproc)" "${targets[@]}"
