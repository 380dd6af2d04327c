#!/usr/bin/env bash
# The last step of README command 2: builds the Debian package from build/, installs it for real
# with apt-get (dependencies resolved by apt), runs the installed netsmith-cli (--version and a
# one-epoch training of an installed sample project), validates the installed desktop file, and
# removes the package again. A netsmith package installed before is left alone (no check then).
set -euo pipefail
cd "$(dirname "$0")/.."
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
if dpkg-query -W -f='${Status}' netsmith 2>/dev/null | grep -q "install ok installed"; then
  echo "netsmith: a netsmith package is already installed here; the package install check is skipped"
  exit 0
fi
(cd build && cpack -G DEB >/dev/null)
deb=$(ls build/netsmith_*_amd64.deb)
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq "./$deb" >/dev/null
work=$(mktemp -d)
trap '"${sudo_cmd[@]}" apt-get remove -y -qq netsmith >/dev/null; rm -rf "$work"' EXIT
/usr/bin/netsmith-cli --version
cp /usr/share/netsmith/projects/fashion_mnist_mlp.nsproj "$work/"
/usr/bin/netsmith-cli train "$work/fashion_mnist_mlp.nsproj" --max-epoch 1 --train-samples 3200 --validation-samples 500 --quiet
desktop-file-validate /usr/share/applications/*netsmith*.desktop
echo "netsmith: $(basename "$deb") installs with apt-get and its netsmith-cli trains"
