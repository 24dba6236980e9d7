"""The image buffer and header readers on crafted messages (the kernel path is covered by
test_images_history.py; these are the cases too big or too odd to send through a kernel)."""

from __future__ import annotations

import base64

import pytest

from jupyter_kernel_state.service import image_formats
from jupyter_kernel_state.service.images import MAX_CODES_REMEMBERED, ImageLimits, ImageStore

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


def png(salt: int) -> str:
    return base64.b64encode(PNG_1x1 + bytes([salt % 256, salt // 256])).decode()


def execute_input(parent: str, code: str, count: int) -> dict:  # type: ignore[type-arg]
    return {"header": {"msg_type": "execute_input", "msg_id": f"in-{parent}"},
            "parent_header": {"msg_id": parent},
            "content": {"code": code, "execution_count": count}}


def test_a_flood_keeps_the_first_and_the_latest() -> None:
    store = ImageStore(ImageLimits(max_images=5, keep_first=3))
    store.handle(execute_input("p1", "plot()", 1), False, 0)
    store.handle(message({"image/png": png(0)}, parent="p1"), False, 0)
    store.handle(execute_input("p2", "for i in range(20): plot(i)", 2), False, 0)
    for salt in range(1, 21):
        store.handle(message({"image/png": png(salt)}, parent="p2"), False, 0)
    listing = store.listing(limit=100)
    assert [i["seq"] for i in listing["images"]] == [1, 2, 3, 17, 18, 19, 20, 21]
    assert listing["dropped"] == 13 and listing["total"] == 8
    assert (listing["keep_first"], listing["keep_last"]) == (3, 5)
    first = listing["images"][0]
    assert (first["execution_count"], first["code"], first["code_truncated"]) == (1, "plot()",
                                                                                 False)
    assert {i["code"] for i in listing["images"][1:]} == {"for i in range(20): plot(i)"}


def test_keep_first_zero_keeps_only_the_latest() -> None:
    store = ImageStore(ImageLimits(max_images=2, keep_first=0))
    for salt in range(5):
        store.handle(message({"image/png": png(salt)}), False, 0)
    assert [i["seq"] for i in store.listing()["images"]] == [4, 5]
    assert store.dropped == 3


def test_the_byte_cap_drops_the_first_ones_last() -> None:
    one = len(PNG_1x1) + 2
    store = ImageStore(ImageLimits(max_images=100, keep_first=2, max_image_bytes=1000,
                                   max_total_bytes=4 * one))
    for salt in range(6):
        store.handle(message({"image/png": png(salt)}), False, 0)
    assert [i["seq"] for i in store.listing()["images"]] == [1, 2, 5, 6]
    # Past the cap with only the first ones left: they go too, oldest first.
    store = ImageStore(ImageLimits(max_images=100, keep_first=5, max_image_bytes=1000,
                                   max_total_bytes=2 * one))
    for salt in range(4):
        store.handle(message({"image/png": png(salt)}), False, 0)
    assert [i["seq"] for i in store.listing()["images"]] == [3, 4]
    assert store.dropped == 2


def test_the_cells_code_is_cut_and_marked() -> None:
    store = ImageStore(ImageLimits(code_chars=10))
    store.handle(execute_input("p1", "x = 1\n" * 10, 4), False, 0)
    store.handle(message({"image/png": png(1)}, parent="p1"), False, 0)
    store.handle(message({"image/png": png(2)}, parent="unknown"), False, 0)
    known, unknown = store.listing()["images"]
    assert (known["code"], known["code_truncated"], known["execution_count"]) == (
        "x = 1\nx = ", True, 4)
    assert (unknown["code"], unknown["code_truncated"], unknown["execution_count"]) == (
        None, False, None)


def test_code_is_remembered_for_the_latest_cells_only() -> None:
    store = ImageStore()
    for n in range(MAX_CODES_REMEMBERED + 1):
        store.handle(execute_input(f"p{n}", f"cell {n}", n + 1), False, 0)
    store.handle(message({"image/png": png(1)}, parent="p0"), False, 0)
    store.handle(message({"image/png": png(2)}, parent=f"p{MAX_CODES_REMEMBERED}"), False, 0)
    old, new = store.listing()["images"]
    assert (old["execution_count"], old["code"]) == (1, None)  # the count is kept longer
    assert new["code"] == f"cell {MAX_CODES_REMEMBERED}"
