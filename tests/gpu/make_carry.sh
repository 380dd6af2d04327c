#!/usr/bin/env bash
# Collects what the lent GPU machine needs to run the GPU checks and netsmith-cli without a build
# (tests/gpu/README.md): the executables, the non-system libraries they load (ldd) except the
# NVIDIA ones (cuDNN, cuBLAS, NCCL come from the PyTorch wheels there), and — separately, as it
# does not fit in one carry — the Fashion-MNIST files; and the GPU benchmark's torchvision models
# (models/, without weights). Prints the `carry` lists and their sizes.
# With COMPUTE_SANITIZER_WHEEL (the nvidia-cuda-sanitizer-api wheel for CUDA 13, from PyPI), its
# compute-sanitizer goes beside bin/ for verify.sh. Also packs bin/, lib/ and compute-sanitizer/
# into one gpu-carry.tar.xz, which fits one carry together with the datasets.
#
#   [COMPUTE_SANITIZER_WHEEL=...whl] tests/gpu/make_carry.sh [build-cuda]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build-cuda}
cd "$root"
dest=$build/gpu-carry
rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/lib" "$dest/datasets/fashion-mnist"
cp "$build/bin/netsmith-cli" "$build/bin/netsmith-gpu-check" "$dest/bin/"
# Non-system: everything but glibc, libstdc++/libgcc (present on any Linux with Python), and the
# NVIDIA libraries that the PyTorch wheels provide.
for exe in "$dest"/bin/*; do
  ldd "$exe" | awk '$3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
  case $name in
    libc.so*|libm.so*|libdl.so*|librt.so*|libpthread.so*|libstdc++.so*|libgcc_s.so*) ;;
    libcudnn*|libcublas*|libnccl*|libcudart*) echo "# from the PyTorch wheels on the GPU machine: $name" ;;
    *) cp -L "$path" "$dest/lib/$name" ;;
  esac
done
cp /usr/share/datasets/fashion-mnist/*.gz "$dest/datasets/fashion-mnist/" 2>/dev/null ||
  echo "# Fashion-MNIST not found in /usr/share/datasets: the real-data runs will be skipped" >&2
# The GPU benchmark's torchvision models (tests/bench/run_gpu_benchmark.sh), exported and imported
# here, where Debian's PyTorch and torchvision are: NAME.nsproj + NAME.map.json, ~0.3 MB; the
# weights are regenerated there from the map (Note [Benchmark weights]). PREP_PYTHON chooses the
# interpreter (default /usr/bin/python3); without torchvision the benchmark prepares them itself.
prep_py=${PREP_PYTHON:-/usr/bin/python3}
if "$prep_py" -c 'import torch, torchvision' 2>/dev/null; then
  nice -n 10 "$prep_py" tests/bench/export_torchvision_models.py prepare --cli "$dest/bin/netsmith-cli" --out "$dest/models"
else
  echo "# $prep_py has no torch/torchvision: the benchmark's models are not prepared (run_gpu_benchmark.sh will try there)" >&2
fi
if [[ -n ${COMPUTE_SANITIZER_WHEEL:-} ]]; then
  unpack=$(mktemp -d)
  python3 -m zipfile -e "$COMPUTE_SANITIZER_WHEEL" "$unpack"
  cp -r "$unpack"/nvidia/cu13/compute-sanitizer "$dest/compute-sanitizer"
  chmod +x "$dest"/compute-sanitizer/compute-sanitizer "$dest"/compute-sanitizer/TreeLauncher* 2>/dev/null || true
  rm -rf "$unpack"
fi
du -sh "$dest"/*
tar -C "$dest" -cf - bin lib $( [[ -d $dest/compute-sanitizer ]] && echo compute-sanitizer ) $( [[ -d $dest/models ]] && echo models ) |
  xz -T0 -6 >"$build/gpu-carry.tar.xz"
du -sh "$build/gpu-carry.tar.xz"
echo "one carry: [\"$build/gpu-carry.tar.xz\", \"$dest/datasets\"], then on the machine:"
echo "  tar -C $dest -xJf $build/gpu-carry.tar.xz && tests/gpu/verify.sh --bin $dest/bin"
echo "or, unpacked: carry 1: [\"$dest/bin\", \"$dest/lib\", \"$dest/models\"]; carry 2: [\"$dest/datasets\"] (a later call, while the machine is warm)"
