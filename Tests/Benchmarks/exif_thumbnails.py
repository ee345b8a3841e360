"""Which JPEGs under a directory carry an EXIF thumbnail, and how early it ends.

Usage: exif_thumbnails.py DIR

For issue 20's question whether the embedded thumbnail (IFD1's JPEG, often
160x120, in the APP1 segment) would pay for a small cell: per file with one, the
file's size and frame, the thumbnail's size and where in the file it ends (the
bytes a Range request would need). Reads markers and TIFF entries only.
"""
import os
import struct
import sys


def segments(data):
    """(marker, payload) of the segments before the first scan."""
    i = 2
    while i + 4 <= len(data) and data[i] == 0xFF:
        marker = data[i + 1]
        if marker in (0xDA, 0xD9):
            return
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        yield marker, i + 4, data[i + 4:i + 2 + length]
        i += 2 + length


def frame(jpeg):
    """(width, height, progressive) of the first SOFn, or None."""
    for marker, _, payload in segments(jpeg):
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC) and len(payload) >= 5:
            height, width = struct.unpack(">HH", payload[1:5])
            return width, height, marker in (0xC2, 0xCA)
    return None


def thumbnail(data):
    """(end offset in the file, length, frame) of the EXIF thumbnail, or None."""
    for marker, start, payload in segments(data):
        if marker != 0xE1 or not payload.startswith(b"Exif\0\0"):
            continue
        tiff = payload[6:]
        order = "<" if tiff[:2] == b"II" else ">"
        try:
            ifd0 = struct.unpack(order + "I", tiff[4:8])[0]
            count = struct.unpack(order + "H", tiff[ifd0:ifd0 + 2])[0]
            ifd1 = struct.unpack(order + "I", tiff[ifd0 + 2 + 12 * count:ifd0 + 6 + 12 * count])[0]
            if ifd1 == 0:
                return None
            entries = struct.unpack(order + "H", tiff[ifd1:ifd1 + 2])[0]
            fields = {}
            for k in range(entries):
                tag, _, _, value = struct.unpack(order + "HHII", tiff[ifd1 + 2 + 12 * k:ifd1 + 14 + 12 * k])
                fields[tag] = value
            offset, length = fields.get(0x201), fields.get(0x202)
            if offset is None or length is None:
                return None
            return start + 6 + offset + length, length, frame(tiff[offset:offset + length])
        except struct.error:
            return None
    return None


def main(directory):
    found = []
    total = 0
    for root, _, files in os.walk(directory):
        for name in sorted(files):
            if not name.lower().endswith((".jpg", ".jpeg")):
                continue
            total += 1
            path = os.path.join(root, name)
            data = open(path, "rb").read()
            embedded = thumbnail(data)
            if embedded and embedded[2]:
                found.append((os.path.relpath(path, directory), data, embedded))
    print(f"{total} JPEGs, {len(found)} with an EXIF thumbnail")
    print("file | file KiB | frame | progressive | thumbnail | thumbnail KiB | ends at KiB | of the file")
    for path, data, (end, length, (width, height, _)) in sorted(found):
        main_frame = frame(data) or ("?", "?", "?")
        print(f"{path} | {len(data) / 1024:.0f} | {main_frame[0]}x{main_frame[1]} | {main_frame[2]} | "
              f"{width}x{height} | {length / 1024:.1f} | {end / 1024:.1f} | {end / len(data):.3f}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
