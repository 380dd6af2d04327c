#!/usr/bin/env bash
# Makes (or reuses) a virtual environment with the current PyTorch wheel from the Python package
# index, usable on the CPU, for run_cpu_benchmark.sh. Prints the venv's python on stdout (all else
# goes to stderr).
#
#   tests/bench/setup_torch_venv.sh [DIR]    # default: $NETSMITH_TORCH_VENV or ~/.cache/netsmith-bench/venv
#
# Why not a plain `pip install torch`: the index's Linux x86-64 wheel is the CUDA build and its
# requirements pull in the CUDA toolkit, cuDNN, NCCL, NVSHMEM, cuSPARSELt and Triton, several GB
# that a CPU benchmark never runs. So: `pip install --no-deps torch`, then its small pure-Python
# requirements (filelock, typing-extensions, sympy, networkx, jinja2, fsspec; plus numpy for
# pytorch_peer.py), then only the NVIDIA libraries that torch's shared objects are linked against
# and so must be present for `import torch` to load: libcufile (cuda-toolkit[cufile]),
# libcusparseLt, libnvshmem_host and NCCL (about 0.5 GB, pinned to the versions torch's own metadata
# asks for). cuDNN, cuBLAS, the CUDA runtime and Triton are loaded only when a GPU is used and stay
# out. The CPU kernels (oneDNN, MKL, the AVX-512 code paths) are inside libtorch_cpu.so itself, so
# nothing of the CPU side is missing: the script checks that torch imports, reports its CPU
# capability and runs a convolution in bf16 under autocast. pip's "requires ... which is not
# installed" warnings for the left-out CUDA packages are expected.
set -euo pipefail

venv=${1:-${NETSMITH_TORCH_VENV:-$HOME/.cache/netsmith-bench/venv}}
py="$venv/bin/python"
check='import torch, numpy
x = torch.randn(2, 3, 16, 16)
with torch.autocast("cpu", dtype=torch.bfloat16):
    y = torch.nn.Conv2d(3, 4, 3)(x)
assert y.dtype == torch.bfloat16
print("torch", torch.__version__, "cpu capability", torch.backends.cpu.get_cpu_capability(), "mkldnn", torch.backends.mkldnn.is_available())'

if [[ -x $py ]] && "$py" -c "$check" >&2 2>/dev/null; then
  echo "$py"
  exit 0
fi

echo "setup_torch_venv: creating $venv with the current torch wheel (about 1 GB to download, 2 GB on disk)" >&2
command -v /usr/bin/python3 >/dev/null
/usr/bin/python3 -m venv "$venv" >&2 || {
  echo "setup_torch_venv: python3 -m venv failed: install python3-venv (installer/install-deps.sh does)" >&2
  exit 1
}
pip=("$venv/bin/pip" install --quiet --disable-pip-version-check)
"${pip[@]}" --no-deps torch >&2
"${pip[@]}" filelock typing-extensions sympy networkx jinja2 fsspec numpy >&2
# The NVIDIA libraries libtorch*.so are linked against, at the versions torch's metadata pins.
mapfile -t nvidia < <("$py" - <<'EOF'
import importlib.metadata as md, re
for r in md.requires("torch") or []:
    spec = r.split(";")[0].strip()
    name = re.match(r"[A-Za-z0-9_.\-]+", spec).group(0)
    if name.startswith(("nvidia-cusparselt", "nvidia-nvshmem", "nvidia-nccl")):
        print(spec)
    elif name == "cuda-toolkit":
        print(re.sub(r"\[[^\]]*\]", "[cufile]", spec))
EOF
)
echo "setup_torch_venv: installing ${nvidia[*]}" >&2
"${pip[@]}" "${nvidia[@]}" >&2
if ! "$py" -c "$check" >&2; then
  echo "setup_torch_venv: torch does not import from $venv (see above); the benchmark runs without the wheel column" >&2
  exit 1
fi
echo "$py"
