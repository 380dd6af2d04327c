#!/usr/bin/env python3
"""Writes Fashion-MNIST as a folder of PNG images, one subfolder per class.

    python3 projects/write_fashion_mnist_folder.py OUT [--per-class N] [--split]

OUT/<class name>/<index>.png for the 60,000 training images (index: the image's position in the
IDX file, zero-padded), with the class names T-shirt_top, Trouser, Pullover, Dress, Coat, Sandal,
Shirt, Sneaker, Bag, Ankle_boot. --per-class N writes only the first N images of each class.
--split writes OUT/train/<class>/ from the training file and OUT/test/<class>/ from the 10,000
test images instead (--per-class then applies to each). The images are 28x28 8-bit gray PNGs.

It reads Debian's dataset-fashion-mnist package (/usr/share/datasets/fashion-mnist/, or
--idx-dir) and needs only Python 3's standard library: the IDX files are read with gzip and
struct, and the PNGs written with zlib and struct. Then make a training dataset of the folder:

    netsmith-cli dataset create OUT --output fashion-mnist-dataset
"""

import argparse
import gzip
import os
import struct
import sys
import zlib

CLASS_NAMES = ["T-shirt_top", "Trouser", "Pullover", "Dress", "Coat",
               "Sandal", "Shirt", "Sneaker", "Bag", "Ankle_boot"]
DEFAULT_IDX_DIR = "/usr/share/datasets/fashion-mnist"


def read_idx(path, expected_dims):
    """The dimensions and the unsigned bytes of an IDX file (gzip-compressed or not)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] != 0x08:
        sys.exit(f"{path}: not an IDX file of unsigned bytes")
    ndims = data[3]
    if ndims != expected_dims:
        sys.exit(f"{path}: {ndims} dimensions, expected {expected_dims}")
    dims = struct.unpack(">" + "I" * ndims, data[4:4 + 4 * ndims])
    payload = data[4 + 4 * ndims:]
    count = 1
    for d in dims:
        count *= d
    if len(payload) != count:
        sys.exit(f"{path}: {len(payload)} bytes of data, its header says {count}")
    return dims, payload


def png_chunk(kind, body):
    return (struct.pack(">I", len(body)) + kind + body +
            struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))


def gray_png(width, height, pixels):
    """An 8-bit grayscale PNG of `pixels` (height rows of width bytes)."""
    raw = b"".join(b"\x00" + pixels[y * width:(y + 1) * width] for y in range(height))  # filter 0 per row
    return (b"\x89PNG\r\n\x1a\n" +
            png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)) +
            png_chunk(b"IDAT", zlib.compress(raw, 9)) +
            png_chunk(b"IEND", b""))


def write_split(idx_dir, prefix, out, per_class):
    (n, rows, cols), images = read_idx(os.path.join(idx_dir, f"{prefix}-images-idx3-ubyte.gz"), 3)
    (n_labels,), labels = read_idx(os.path.join(idx_dir, f"{prefix}-labels-idx1-ubyte.gz"), 1)
    if n != n_labels:
        sys.exit(f"{idx_dir}: {n} {prefix} images but {n_labels} labels")
    for name in CLASS_NAMES:
        os.makedirs(os.path.join(out, name), exist_ok=True)
    written = [0] * len(CLASS_NAMES)
    size = rows * cols
    digits = len(str(n - 1))
    for i in range(n):
        label = labels[i]
        if label >= len(CLASS_NAMES):
            sys.exit(f"{prefix} label {label} of image {i} is not a Fashion-MNIST class (0..9)")
        if per_class is not None and written[label] >= per_class:
            continue
        path = os.path.join(out, CLASS_NAMES[label], f"{i:0{digits}d}.png")
        with open(path, "wb") as f:
            f.write(gray_png(cols, rows, images[i * size:(i + 1) * size]))
        written[label] += 1
    return sum(written)


def main():
    parser = argparse.ArgumentParser(description="Writes Fashion-MNIST as OUT/<class>/<index>.png.")
    parser.add_argument("out", help="the folder to write (created; existing files of the same names are replaced)")
    parser.add_argument("--per-class", type=int, metavar="N", help="write only the first N images of each class")
    parser.add_argument("--split", action="store_true",
                        help="write OUT/train/<class>/ (training file) and OUT/test/<class>/ (test file)")
    parser.add_argument("--idx-dir", default=DEFAULT_IDX_DIR,
                        help=f"the folder of the IDX .gz files (default {DEFAULT_IDX_DIR}, Debian's dataset-fashion-mnist)")
    args = parser.parse_args()
    if args.per_class is not None and args.per_class < 1:
        parser.error(f"--per-class: expected a positive number, got {args.per_class}")
    if not os.path.isfile(os.path.join(args.idx_dir, "train-images-idx3-ubyte.gz")):
        sys.exit(f"{args.idx_dir} has no train-images-idx3-ubyte.gz: install Debian's dataset-fashion-mnist "
                 "(apt-get install dataset-fashion-mnist) or give --idx-dir")
    if args.split:
        count = write_split(args.idx_dir, "train", os.path.join(args.out, "train"), args.per_class)
        count += write_split(args.idx_dir, "t10k", os.path.join(args.out, "test"), args.per_class)
    else:
        count = write_split(args.idx_dir, "train", args.out, args.per_class)
    print(f"wrote {count} PNG images in {len(CLASS_NAMES)} class folders under {args.out}")


if __name__ == "__main__":
    main()
