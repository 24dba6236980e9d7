"""Recognise image bytes and read their size from the header, without decoding pixels.

Each reader looks at a bounded prefix only; ``None`` means "not this format" (a mismatch
with the declared MIME type) or "size not found cheaply".
"""

from __future__ import annotations

import re
import struct

IMAGE_MIMES = ("image/png", "image/jpeg", "image/gif", "image/webp", "image/svg+xml")
# How much of a JPEG we scan for its frame header; how much of an SVG for its size.
JPEG_SCAN_BYTES = 256 * 1024
SVG_SCAN_CHARS = 4096

_SVG_TAG = re.compile(rb"<svg[\s>]", re.IGNORECASE)
_SVG_ATTR = re.compile(rb'\b(width|height|viewBox)\s*=\s*["\']([^"\']{1,100})["\']', re.I)
_NUMBER = re.compile(rb"^\s*([0-9]+(?:\.[0-9]+)?)\s*(px)?\s*$")


def matches(mime: str, data: bytes) -> bool:
    """Whether ``data`` looks like ``mime`` (the declared type is never trusted)."""
    if mime == "image/png":
        return data.startswith(b"\x89PNG\r\n\x1a\n")
    if mime == "image/jpeg":
        return data.startswith(b"\xff\xd8\xff")
    if mime == "image/gif":
        return data[:6] in (b"GIF87a", b"GIF89a")
    if mime == "image/webp":
        return data[:4] == b"RIFF" and data[8:12] == b"WEBP"
    if mime == "image/svg+xml":
        return _SVG_TAG.search(data[:SVG_SCAN_CHARS]) is not None
    return False


def dimensions(mime: str, data: bytes) -> tuple[int | None, int | None]:
    try:
        reader = _READERS.get(mime)
        return reader(data) if reader else (None, None)
    except (struct.error, IndexError, ValueError):
        return None, None


def _png(data: bytes) -> tuple[int | None, int | None]:
    if data[12:16] != b"IHDR":
        return None, None
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _gif(data: bytes) -> tuple[int | None, int | None]:
    width, height = struct.unpack("<HH", data[6:10])
    return width, height


def _jpeg(data: bytes) -> tuple[int | None, int | None]:
    i = 2
    end = min(len(data), JPEG_SCAN_BYTES)
    while i + 9 < end:
        if data[i] != 0xFF:
            return None, None
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[i + 5:i + 9])
            return width, height
        i += 2 + length
    return None, None


def _webp(data: bytes) -> tuple[int | None, int | None]:
    chunk = data[12:16]
    if chunk == b"VP8X":
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return width, height
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L":
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    return None, None


def _svg(data: bytes) -> tuple[int | None, int | None]:
    head = data[:SVG_SCAN_CHARS]
    tag = _SVG_TAG.search(head)
    if tag is None:
        return None, None
    attrs = {k.decode().lower(): v for k, v in _SVG_ATTR.findall(head[tag.start():])}
    width = _svg_length(attrs.get("width"))
    height = _svg_length(attrs.get("height"))
    if (width is None or height is None) and "viewbox" in attrs:
        parts = attrs["viewbox"].replace(b",", b" ").split()
        if len(parts) == 4:
            width = width if width is not None else round(float(parts[2]))
            height = height if height is not None else round(float(parts[3]))
    return width, height


def _svg_length(raw: bytes | None) -> int | None:
    if raw is None:
        return None
    match = _NUMBER.match(raw)
    return round(float(match.group(1))) if match else None


_READERS = {
    "image/png": _png,
    "image/gif": _gif,
    "image/jpeg": _jpeg,
    "image/webp": _webp,
    "image/svg+xml": _svg,
}
