"""Writes the expected values the placeholder XCTests compare with, from the
reference decoders: Tests/Fixtures/placeholders/{blurhash,thumbhash,thumbhash-sizes}.txt.

Usage: placeholder_fixtures.py PHOTOS_DIR OUT_DIR   (make placeholder-fixtures runs it
in build/placeholder-venv with the packages pinned in scripts/placeholder-oracles.txt)

Oracles:
  blurhash (PyPI, pure Python): the TypeScript reference decoder's arithmetic in doubles.
  fast_thumbhash (PyPI): Evan Wallace's Rust crate `thumbhash`, the reference decoder,
    which renders only at its own size (32 pixels on the long side).
  thumbhash-python (PyPI): a port in doubles that takes a size, but rounds where the
    reference truncates: the check at other sizes, within 1 per channel.

Hashes: encoded by the reference encoders (blurhash's, the Rust crate's) from the
Kodak photos, from photos given an alpha mask or cut to panoramas, plus hashes of
seeded random bytes, which reach values no encoder writes.

Lines: `<kind> <hash> <width> <height> <sha256 of RGBA8> <sha256 of BGRA8 premultiplied>`,
premultiplied by the loader's rule (c * a + 127) / 255; thumbhash-sizes.txt lines end
with the RGBA8 bytes in hex instead of digests. Last, a `<kind>-stress <count> <sha256>`
line: one digest of the RGBA8 renders of `count` hashes made by SplitMix64 from seed
20 (the tests make the same ones), enough channels that a change to the order of the
reference's float operations, which moves values by a unit in the last place, turns
some byte.
"""
import base64
import hashlib
import random
import sys

import blurhash
import fast_thumbhash
import PIL
from importlib.metadata import version
from PIL import Image, ImageDraw
from thumbhash.decode import thumbhash_to_rgba as python_thumbhash_to_rgba

B83 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~"


class SplitMix64:
    """The tests' generator (Tests/LazyImgCoreTests/SplitMix.swift)."""

    def __init__(self, seed):
        self.state = seed

    def next(self):
        mask = (1 << 64) - 1
        self.state = (self.state + 0x9E3779B97F4A7C15) & mask
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return z ^ (z >> 31)


def stress_blurhashes(count):
    """Sizes 0...82 and digits at random; rendered at 12 x 12."""
    generator = SplitMix64(20)
    hashes = []
    for _ in range(count):
        size = generator.next() % 83
        digits = 3 + 2 * (size % 9 + 1) * (size // 9 + 1)
        hashes.append(B83[size] + "".join(B83[generator.next() % 83] for _ in range(digits)))
    return hashes


def stress_thumbhashes(count):
    """32 random bytes each, with a short side of at least one component."""
    generator = SplitMix64(20)
    hashes = []
    for _ in range(count):
        data = bytearray(generator.next() & 255 for _ in range(32))
        if data[3] & 7 == 0:
            data[3] |= 1
        hashes.append(bytes(data))
    return hashes


def premultiplied_bgra(rgba):
    out = bytearray(len(rgba))
    for i in range(0, len(rgba), 4):
        r, g, b, a = rgba[i:i + 4]
        out[i] = (b * a + 127) // 255
        out[i + 1] = (g * a + 127) // 255
        out[i + 2] = (r * a + 127) // 255
        out[i + 3] = a
    return bytes(out)


def digests(rgba):
    return hashlib.sha256(rgba).hexdigest() + " " + hashlib.sha256(premultiplied_bgra(rgba)).hexdigest()


def photos(directory):
    return [Image.open(f"{directory}/kodim{i:02d}.png").convert("RGB") for i in range(1, 25)]


def blurhash_cases(images, rng):
    hashes = ["LEHV6nWB2yk8pyo0adR*.7kCMdnj", "LGF5]+Yk^6#M@-5c,1J5@[or[Q6.", "L6PZfSi_.AyE_3t7t7R**0o#DgR4"]
    components = [(4, 3), (4, 4), (1, 1), (9, 9), (3, 7), (5, 2)]
    for index, image in enumerate(images):
        small = image.copy()
        small.thumbnail((48, 48))
        nx, ny = components[index % len(components)]
        pixels = [[list(small.getpixel((x, y))) for x in range(small.width)] for y in range(small.height)]
        hashes.append(blurhash.encode(pixels, nx, ny))
    # Random digits: averages past 24 bits, the AC extremes, and the 10-row sizes 81, 82.
    for size in [0, 8, 80, 81, 82] + [rng.randrange(83) for _ in range(7)]:
        count = (size % 9 + 1) * (size // 9 + 1)
        hashes.append(B83[size] + "".join(rng.choice(B83) for _ in range(3 + 2 * count)))
    sizes = [(32, 32), (1, 1), (7, 3), (20, 13), (64, 40), (3, 50)]
    lines = []
    for number, text in enumerate(hashes):
        for width, height in sizes if number % 4 == 0 else sizes[:4]:
            rgba = bytearray()
            for row in blurhash.decode(text, width, height):
                for r, g, b in row:
                    rgba += bytes([r, g, b, 255])
            lines.append(f"blurhash {text} {width} {height} {digests(bytes(rgba))}")
    stress = hashlib.sha256()
    count = 300
    for text in stress_blurhashes(count):
        for row in blurhash.decode(text, 12, 12):
            for r, g, b in row:
                stress.update(bytes([r, g, b, 255]))
    lines.append(f"blurhash-stress {count} {stress.hexdigest()}")
    return lines


def thumbhash_inputs(images):
    """RGBA thumbnails of at most 100x100, as the reference encoder takes them."""
    inputs = []
    for index, image in enumerate(images):
        rgba = image.convert("RGBA")
        if index % 4 == 1:  # an alpha mask: a soft ellipse
            mask = Image.new("L", rgba.size, 0)
            ImageDraw.Draw(mask).ellipse((60, 40, rgba.width - 60, rgba.height - 40), fill=255)
            rgba.putalpha(mask)
        elif index % 4 == 2:  # a panorama, so the short side has fewer than 3 components
            rgba = rgba.crop((0, 200, rgba.width, 200 + rgba.height // 5))
        elif index % 4 == 3:  # portrait
            rgba = rgba.crop((0, 0, rgba.height // 2, rgba.height))
        rgba.thumbnail((100, 100))
        inputs.append(rgba)
    return inputs


def random_thumbhashes(rng):
    hashes = []
    for _ in range(12):
        data = bytearray(rng.randrange(256) for _ in range(32))
        if data[3] & 7 == 0:
            data[3] |= 1  # a short side of 0 components is refused, not rendered
        hashes.append(bytes(data))
    return hashes


def thumbhash_cases(images, rng):
    hashes = [bytes(fast_thumbhash.rgba_to_thumb_hash(i.width, i.height, i.tobytes())) for i in thumbhash_inputs(images)]
    hashes += random_thumbhashes(rng)
    lines = []
    for data in hashes:
        width, height, rgba = fast_thumbhash.thumb_hash_to_rgba(data)
        text = base64.b64encode(data).decode()
        lines.append(f"thumbhash {text} {width} {height} {digests(bytes(rgba))}")
    stress = hashlib.sha256()
    count = 2000
    for data in stress_thumbhashes(count):
        stress.update(bytes(fast_thumbhash.thumb_hash_to_rgba(data)[2]))
    lines.append(f"thumbhash-stress {count} {stress.hexdigest()}")
    return hashes, lines


def thumbhash_size_cases(hashes):
    lines = []
    for data in hashes[:4] + hashes[-2:]:
        for base in (12, 24):
            width, height, rgba = python_thumbhash_to_rgba(data, base)
            text = base64.b64encode(data).decode()
            lines.append(f"thumbhash {text} {width} {height} {bytes(rgba).hex()}")
    return lines


def write(path, oracle, lines):
    with open(path, "w") as f:
        f.write(f"# Generated by scripts/placeholder_fixtures.py from {oracle}; do not edit.\n")
        f.write("\n".join(lines) + "\n")


def main():
    photos_dir, out = sys.argv[1], sys.argv[2]
    rng = random.Random(20)
    images = photos(photos_dir)
    write(f"{out}/blurhash.txt", f"blurhash {version('blurhash')} (Pillow {PIL.__version__})",
          blurhash_cases(images, rng))
    hashes, lines = thumbhash_cases(images, rng)
    write(f"{out}/thumbhash.txt", f"fast_thumbhash {version('fast_thumbhash')}", lines)
    write(f"{out}/thumbhash-sizes.txt", f"thumbhash-python {version('thumbhash-python')}",
          thumbhash_size_cases(hashes))


main()
