#!/usr/bin/env python3
"""Writes a synthetic colour image dataset the way `netsmith-cli dataset create` lays one out,
for the streaming benchmark (run_streaming_benchmark.sh): DIR/training.csv (x:image,y:label) and
DIR/classes.txt, and with --store the packed sample store DIR/training.nsstore (Note [Sample
store]: CHW bytes, then the 64-byte trailer with the CSV's SHA-256), with --png the PNG files the
CSV names (DIR/images/<class>/<n>.png). Pixels are a class colour plus noise, so a network learns
something; only standard-library Python."""
import argparse, hashlib, os, random, struct, zlib


def png_bytes(width, height, rgb_rows):
    raw = b"".join(b"\0" + row for row in rgb_rows)
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b""))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("dir")
    ap.add_argument("--count", type=int, default=100000)
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--store", action="store_true")
    ap.add_argument("--png", action="store_true")
    a = ap.parse_args()
    s, n, k = a.size, a.count, a.classes
    os.makedirs(a.dir, exist_ok=True)
    rng = random.Random(1)
    names = [f"class{c}" for c in range(k)]
    with open(os.path.join(a.dir, "classes.txt"), "w") as f:
        f.write("".join(x + "\n" for x in names))
    labels = [rng.randrange(k) for _ in range(n)]
    csv = "x:image,y:label\n" + "".join(f"images/{names[l]}/{i}.png,{l}\n" for i, l in enumerate(labels))
    csv = csv.encode()
    with open(os.path.join(a.dir, "training.csv"), "wb") as f:
        f.write(csv)
    plane = s * s
    noise = rng.randbytes(plane * 3 * 64)  # 64 noise images, reused
    store = open(os.path.join(a.dir, "training.nsstore"), "wb") if a.store else None
    if a.png:
        for c in names:
            os.makedirs(os.path.join(a.dir, "images", c), exist_ok=True)
    for i, l in enumerate(labels):
        base = noise[(i % 64) * plane * 3:(i % 64 + 1) * plane * 3]
        shift = bytes(((l * 25 + 40 * ch) % 256) for ch in range(3))
        # CHW planes: the noise with each channel's class offset (mod 256), via a translation table.
        chw = b"".join(base[ch * plane:(ch + 1) * plane].translate(bytes((v + shift[ch]) % 256 for v in range(256)))
                       for ch in range(3))
        if store:
            store.write(chw)
        if a.png:
            rows = []
            for y in range(s):
                r, g, b = (chw[ch * plane + y * s: ch * plane + (y + 1) * s] for ch in range(3))
                row = bytearray(3 * s)
                row[0::3], row[1::3], row[2::3] = r, g, b
                rows.append(bytes(row))
            with open(os.path.join(a.dir, "images", names[l], f"{i}.png"), "wb") as f:
                f.write(png_bytes(s, s, rows))
    if store:
        trailer = b"NSSTORE1" + struct.pack("<IIIIQ", 1, 3, s, s, n) + hashlib.sha256(csv).digest()
        assert len(trailer) == 64
        store.write(trailer)
        store.close()


if __name__ == "__main__":
    main()
