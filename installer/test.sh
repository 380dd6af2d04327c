#!/usr/bin/env bash
# README command 2 (and CI): installs what is missing, builds, runs every test that needs no GPU,
# then the sanitizer subsets: AddressSanitizer + UBSan over the parsers (label asan) and
# ThreadSanitizer over the thread code (label tsan), and last the Debian package: built, installed
# with apt-get, used and removed (installer/check-package.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
./installer/install-deps.sh
export PATH="/usr/local/cuda/bin:$PATH"
jobs=$(nproc)

./installer/build.sh -DNETSMITH_WITH_CUDA=ON
# Note [Test Python] (tests/support/test_python.h): onnxruntime and tensorboard are not Debian
# packages; the ONNX tests compare with onnxruntime, and tst_tensorboard reads the runs' event files
# with TensorBoard's own reader, from a virtual environment over Debian's Python and its packages
# (torch, numpy 1.24, onnx stay Debian's). Without network access pip fails: the tests then say,
# as skips, what they did not compare, and the run goes on.
ort_version=1.32.0
tensorboard_version=2.21.0
venv=build/test-venv
if [[ ! -x $venv/bin/python3 ]]; then
  /usr/bin/python3 -m venv --system-site-packages "$venv" ||
    echo "netsmith: could not create $venv (python3-venv): the ONNX tests compare with PyTorch only" >&2
fi
if [[ -x $venv/bin/python3 ]] && ! "$venv/bin/python3" -c 'import onnxruntime' 2>/dev/null; then
  "$venv/bin/python3" -m pip install --disable-pip-version-check --quiet --timeout 30 --retries 1 \
    "onnxruntime==$ort_version" ||
    echo "netsmith: pip could not install onnxruntime $ort_version: the ONNX tests compare with PyTorch only and say so" >&2
fi
if [[ -x $venv/bin/python3 ]] && ! "$venv/bin/python3" -c 'import tensorboard' 2>/dev/null; then
  "$venv/bin/python3" -m pip install --disable-pip-version-check --quiet --timeout 30 --retries 1 \
    "tensorboard==$tensorboard_version" ||
    echo "netsmith: pip could not install tensorboard $tensorboard_version: tst_tensorboard checks the files' framing only and says so" >&2
fi
# Every label but gpu (a real GPU); CTest's label filters are regular expressions, hence the anchors.
no_gpu='^gpu$'
# Note [Simulated GPUs]: wherever the CUDA backend is built, its host code runs on simulated GPUs
# (label simgpu) in the run below; the toolkit without those tests in it is a failure, not a skip.
if [[ -x /usr/local/cuda/bin/nvcc ]] &&
  ! (cd build && ctest -N -L simgpu --label-exclude "$no_gpu" | grep -q 'Total Tests: [1-9]'); then
  echo "netsmith: the CUDA toolkit is installed but the simulated-GPU tests (label simgpu) are not in the run" >&2
  exit 1
fi
(cd build && ctest --output-on-failure --parallel "$jobs" --label-exclude "$no_gpu")

cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNETSMITH_SANITIZE=address \
  -DNETSMITH_BUILD_GUI=OFF -DNETSMITH_WITH_CUDA=OFF >/dev/null
cmake --build build-asan --parallel "$jobs" --target netsmith_asan_tests
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --output-on-failure --parallel "$jobs" --label-regex asan)

cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNETSMITH_SANITIZE=thread \
  -DNETSMITH_BUILD_GUI=OFF -DNETSMITH_WITH_CUDA=OFF >/dev/null
cmake --build build-tsan --parallel "$jobs" --target netsmith_tsan_tests
(cd build-tsan && TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/../tests/sanitize/tsan.supp" \
  ctest --output-on-failure --parallel "$jobs" --label-regex tsan)

# The Debian package, installed for real with apt-get and removed again.
./installer/check-package.sh
echo "netsmith: all tests passed"
