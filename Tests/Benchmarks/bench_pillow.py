"""Pillow's side of Tests/Benchmarks/bench-decode.sh: thumbnails per second, one thread.

Usage: bench_pillow.py SECONDS FILE...

Does what a Python user writes for a thumbnail (open, draft, thumbnail) on files
preloaded into memory, forcing the decode with load(). Prints, per format,
"<format> <thumbs/s> <decodes> <seconds>", the same lines as lazyimg-bench --machine.
"""
import io
import sys
import time

from PIL import Image

BOX = (128, 128)


def thumbnail(data):
    im = Image.open(io.BytesIO(data))
    im.draft("RGB", BOX)  # JPEG: DCT scaling; other formats ignore it
    im.thumbnail(BOX)
    im.load()
    return im


def measure(inputs, minimum_seconds):
    for data in inputs:  # warm-up pass
        thumbnail(data)
    decodes = 0
    start = time.perf_counter()
    while True:
        for data in inputs:
            thumbnail(data)
        decodes += len(inputs)
        elapsed = time.perf_counter() - start
        if elapsed >= minimum_seconds:
            return decodes, elapsed


def main():
    minimum_seconds = float(sys.argv[1])
    sets = {"jpeg": [], "png": []}
    for path in sys.argv[2:]:
        with open(path, "rb") as f:
            data = f.read()
        if data.startswith(b"\xff\xd8\xff"):
            sets["jpeg"].append(data)
        elif data.startswith(b"\x89PNG\r\n\x1a\n"):
            sets["png"].append(data)
        else:
            sys.exit(f"bench_pillow.py: {path} is neither JPEG nor PNG")
    for name, inputs in sets.items():
        if inputs:
            decodes, seconds = measure(inputs, minimum_seconds)
            print(name, decodes / seconds, decodes, seconds)


if __name__ == "__main__":
    main()
