"""The image buffer and header readers on crafted messages (the kernel path is covered by
test_images_history.py; these are the cases too big or too odd to send through a kernel)."""

from __future__ import annotations

import base64

import pytest

from jupyter_kernel_state.service import image_formats
from jupyter_kernel_state.service.images import ImageLimits, ImageStore

PNG_1x1 = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"
    b"\x90wS\xde\x00\x00\x00\x0cIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00"
    b"\x00\x00IEND\xaeB`\x82"
)


def message(data, msg_type="display_data", msg_id="m1", parent="p1"):  # type: ignore[no-untyped-def]
    return {
        "header": {"msg_type": msg_type, "msg_id": msg_id},
        "parent_header": {"msg_id": parent},
        "content": {"data": data, "metadata": {}},
    }


def test_a_200_mb_image_is_rejected_without_decoding() -> None:
    store = ImageStore()
    huge = "A" * (200 * 1024 * 1024)
    assert store.handle(message({"image/png": huge}), False, 0) == []
    assert store.rejected == 1 and len(store) == 0


def test_own_messages_are_ignored() -> None:
    store = ImageStore()
    png = base64.b64encode(PNG_1x1).decode()
    assert store.handle(message({"image/png": png}), True, 0) == []
    assert len(store) == 0


@pytest.mark.parametrize(
    "content",
    [None, "string", {"data": None}, {"data": ["image/png"]}, {"data": {"image/png": None}}],
)
def test_malformed_content_never_raises(content) -> None:  # type: ignore[no-untyped-def]
    store = ImageStore()
    msg = {"header": {"msg_type": "display_data"}, "parent_header": None, "content": content}
    store.handle(msg, False, 0)


def test_total_bytes_cap_drops_oldest() -> None:
    store = ImageStore(ImageLimits(max_images=100, max_image_bytes=1000, max_total_bytes=200))
    for salt in range(10):
        data = PNG_1x1 + bytes([salt]) * 10
        store.handle(message({"image/png": base64.b64encode(data).decode()}), False, 0)
    assert store.total_bytes <= 200
    assert store.dropped == 10 - len(store)


@pytest.mark.parametrize(
    ("mime", "data", "size"),
    [
        ("image/png", PNG_1x1, (1, 1)),
        ("image/gif", b"GIF89a\x10\x00\x20\x00" + b"\x00" * 8, (16, 32)),
        ("image/svg+xml", b'<svg viewBox="0 0 40 30"></svg>', (40, 30)),
        ("image/svg+xml", b'<?xml version="1.0"?><svg width="12px" height="7"></svg>', (12, 7)),
        ("image/svg+xml", b'<svg width="50%" height="auto"></svg>', (None, None)),
        ("image/webp", b"RIFF\x00\x00\x00\x00WEBPVP8X" + b"\x00" * 8 + b"\x09\x00\x00\x04\x00\x00",
         (10, 5)),
        ("image/jpeg", b"\xff\xd8\xff\xe0\x00\x04\x00\x00\xff\xc0\x00\x11\x08\x00\x02\x00\x03"
         + b"\x00" * 10, (3, 2)),
        ("image/jpeg", b"\xff\xd8\xff", (None, None)),
    ],
)
def test_dimensions_from_headers(mime, data, size) -> None:  # type: ignore[no-untyped-def]
    assert image_formats.matches(mime, data)
    assert image_formats.dimensions(mime, data) == size
