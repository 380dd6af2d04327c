#!/usr/bin/env bash
# README command 1: installs what is missing, builds, and trains the sample project
# (projects/fashion_mnist_lenet.nsproj) in the terminal with a progress bar.
set -euo pipefail
cd "$(dirname "$0")/.."
./installer/install-deps.sh
./installer/build.sh
exec ./build/bin/netsmith-cli train projects/fashion_mnist_lenet.nsproj "$@"
