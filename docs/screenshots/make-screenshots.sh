#!/usr/bin/env bash
# Every page of the console at 1366x768 and 1920x1080 (issue 17 item 4), taken from the built GUI
# under Xvfb with its hidden screenshot options (gui/app/application.cpp): the LeNet sample is
# copied into a scratch folder, trained for 3 epochs of 12,000 samples on two CPU workers (one
# grab while it runs), then every page is grabbed; the Inference tab classifies a few test images
# written from Fashion-MNIST. Writes docs/screenshots/<page>-<W>x<H>.png. Needs xvfb-run.
#
#   docs/screenshots/make-screenshots.sh [BUILD_DIR]     # from the repository root; default build
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
gui="$build/bin/netsmith"
[[ -x $gui ]] || { echo "error: $gui not found: build the GUI first" >&2; exit 1; }
out="$root/docs/screenshots"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$root/projects/fashion_mnist_lenet.nsproj" "$work/lenet.nsproj"
# Five test images (Fashion-MNIST's test set, as PNG) for the Inference tab.
python3 - "$work" <<'PY'
import gzip, struct, sys, zlib
work = sys.argv[1]
data = gzip.open("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz").read()[16:]
def png(path, pixels):
    raw = b"".join(b"\0" + pixels[r * 28:(r + 1) * 28] for r in range(28))
    chunk = lambda k, d: struct.pack(">I", len(d)) + k + d + struct.pack(">I", zlib.crc32(k + d) & 0xFFFFFFFF)
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 28, 28, 8, 0, 0, 0, 0)) +
                           chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
for i in range(5):
    png(f"{work}/test-{i}.png", data[i * 784:(i + 1) * 784])
PY
images=$(ls "$work"/test-*.png | paste -sd, -)
for size in ${SIZES:-1366x768 1920x1080}; do
  shots=()
  for page in edit dataset config training evaluation inference; do shots+=(--screenshot "$page=$out/$page-$size.png"); done
  shots+=(--screenshot "training@running=$out/training-running-$size.png")
  rm -rf "$work/lenet.runs"
  xvfb-run -a -s "-screen 0 ${size}x24" "$gui" "$work/lenet.nsproj" --window-size "$size" \
    --screenshot-train "--max-epoch 3 --train-samples 12000 --devices cpu:0,cpu:1" \
    --screenshot-images "$images" "${shots[@]}" 2>&1 | grep -v -e XDG_RUNTIME_DIR -e propagateSizeHints || true
done
ls -l "$out"/*-1366x768.png "$out"/*-1920x1080.png
