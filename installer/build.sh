#!/usr/bin/env bash
# Configures and builds Netsmith into build/ (Release, Ninja, ccache when present).
# Usage: installer/build.sh [extra cmake arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build --parallel "$(nproc)"
