"""Kernel-side: publish many small, distinct PNGs as fast as the kernel can."""

import base64
import struct
import time
import zlib

from IPython.display import publish_display_data

SIDE = 4  # pixels
last = (0, 0.0)  # (published, seconds) of the latest flood


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(counter):
    """A valid 4×4 RGB PNG whose first pixel encodes ``counter`` (distinct up to 2**24)."""
    first = counter.to_bytes(3, "big")
    row0 = b"\x00" + first + b"\x80" * (SIDE * 3 - 3)
    rest = (b"\x00" + b"\x80" * (SIDE * 3)) * (SIDE - 1)
    header = struct.pack(">IIBBBBB", SIDE, SIDE, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(row0 + rest)) + _chunk(b"IEND", b""))


def flood(seconds, max_images, start=0):
    """Publish distinct PNGs (made beforehand) for ``seconds`` or until ``max_images``;
    remember how many and how long in ``last``."""
    bundles = [{"image/png": base64.b64encode(png(start + i)).decode("ascii"),
                "text/plain": "<png>"} for i in range(max_images)]
    t0 = time.perf_counter()
    deadline = t0 + seconds
    sent = 0
    for bundle in bundles:
        if time.perf_counter() >= deadline:
            break
        publish_display_data(bundle)
        sent += 1
    global last
    last = (sent, time.perf_counter() - t0)
