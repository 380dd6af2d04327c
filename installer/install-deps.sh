#!/usr/bin/env bash
# Installs, with apt-get, every Debian package Netsmith needs to build, test and benchmark; with
# --app only what README's first command needs to build and run the console and the engine.
# Idempotent: packages already present are left alone, so a second run does nothing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  qt6-base-dev libqt6opengl6-dev libgl-dev libqcustomplot-dev
  nlohmann-json3-dev
  libdnnl-dev ocl-icd-opencl-dev opencl-headers
  libopenmpi-dev openmpi-bin
  libpng-dev libjpeg62-turbo-dev zlib1g-dev
  libonnx-dev libprotobuf-dev
  dataset-fashion-mnist
)
# The tests, the benchmarks and the package check: PyTorch and ONNX to compare with, Xvfb for the
# screenshots, the Debian packaging tools.
if [[ ${1:-} != --app ]]; then
  packages+=(
    git python3-onnx
    dpkg-dev desktop-file-utils appstream
    python3 python3-numpy python3-torch python3-torchvision libopenblas0-openmp python3-venv
    xvfb xauth
  )
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "netsmith: every package needed is installed"
  exit 0
fi

echo "netsmith: installing ${missing[*]}"
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
# A dpkg run cut off earlier (a machine stopped mid-install) makes every apt-get refuse with "dpkg
# was interrupted"; finishing it is what apt asks for, and does nothing when nothing is pending.
"${sudo_cmd[@]}" dpkg --configure -a
# Another apt (unattended upgrades on a fresh machine) may hold the lock for a while: wait for it.
apt_get=("${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600)
"${apt_get[@]}" update -qq
"${apt_get[@]}" install -y -qq --no-install-recommends "${missing[@]}"
