"""Real PNG files made with zlib, for the binding's tests (no Pillow needed)."""
import struct
import zlib


def png(width, height, rgba):
    """An 8-bit RGBA PNG of one colour `rgba` (a 4-tuple)."""
    row = b"\x00" + bytes(rgba) * width  # filter type 0 per row
    raw = row * height

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw))
            + chunk(b"IEND", b""))
