"""Images and execution history captured from real kernels' IOPub."""

from __future__ import annotations

import asyncio
import json
import struct

import pytest
from tornado.httpclient import HTTPClientError

from .conftest import BOTH_BACKENDS, EVERY_GATEWAY, server_config
from .kernel_utils import get_json, start_kernel, validate

pytestmark = [pytest.mark.kernel, BOTH_BACKENDS, EVERY_GATEWAY]

# Kernel-side helper: a valid, distinct PNG of the given size without any library.
MAKE_PNG = r'''
import base64, struct, zlib
def make_png(width, height, salt=0):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\x00" + bytes([salt % 256]) * (width * 3) for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
def publish(data, metadata=None, display_id=None, update=False):
    from IPython.display import publish_display_data
    transient = {"display_id": display_id} if display_id else None
    publish_display_data(data, metadata=metadata, transient=transient, update=update)
'''


async def images(jp_fetch, kernel_id, **params):  # type: ignore[no-untyped-def]
    payload = await get_json(jp_fetch, "kernels", kernel_id, "images", params=params)
    validate(payload, "ImageList")
    return payload


async def get_history(jp_fetch, kernel_id, **params):  # type: ignore[no-untyped-def]
    payload = await get_json(jp_fetch, "kernels", kernel_id, "history", params=params)
    validate(payload, "History")
    return payload


async def test_matplotlib_plot_is_captured_with_its_execution_count(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("x = 1")
    await kernel.run(
        "%matplotlib inline\nimport matplotlib.pyplot as plt\n"
        "plt.figure(figsize=(4, 3), dpi=50); plt.plot([1, 3, 2]); plt.show()"
    )
    listing = await images(jp_fetch, kernel.kernel_id)
    assert len(listing["images"]) == 1
    image = listing["images"][0]
    assert image["mime"] == "image/png"
    assert image["execution_count"] == 2
    assert 100 < image["width"] <= 200 and 75 < image["height"] <= 150  # tight bbox crops
    assert listing["next_since"] == image["seq"]
    raw = await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "images",
                         image["id"])
    assert raw.headers["Content-Type"] == "image/png"
    assert raw.headers["X-Content-Type-Options"] == "nosniff"
    assert raw.body.startswith(b"\x89PNG") and len(raw.body) == image["bytes"]
    assert struct.unpack(">II", raw.body[16:24]) == (image["width"], image["height"])
    # The since cursor gives exactly what is new.
    assert (await images(jp_fetch, kernel.kernel_id, since=listing["next_since"]))["images"] == []
    history = await get_history(jp_fetch, kernel.kernel_id)
    assert history["entries"][-1]["image_ids"] == [image["id"]]


async def test_svg_is_served_sandboxed_and_jpeg_gif_are_captured(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(
        "from IPython.display import SVG, display\n"
        "display(SVG('<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"30\" height=\"20\" "
        "onload=\"alert(1)\"><script>alert(2)</script><rect width=\"30\" height=\"20\"/></svg>'))"
    )
    await kernel.run(
        MAKE_PNG + "import base64\n"
        "publish({'image/gif': base64.b64encode(b'GIF89a\\x05\\x00\\x07\\x00' + b'\\x00' * 20).decode()})\n"
        "publish({'image/jpeg': base64.b64encode(b'\\xff\\xd8\\xff\\xc0\\x00\\x11\\x08\\x00\\x09\\x00\\x0c' + b'\\x00' * 30).decode()})"
    )
    listing = await images(jp_fetch, kernel.kernel_id)
    by_mime = {i["mime"]: i for i in listing["images"]}
    svg = by_mime["image/svg+xml"]
    assert (svg["width"], svg["height"]) == (30, 20)
    assert (by_mime["image/gif"]["width"], by_mime["image/gif"]["height"]) == (5, 7)
    assert (by_mime["image/jpeg"]["width"], by_mime["image/jpeg"]["height"]) == (12, 9)
    raw = await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "images", svg["id"])
    assert raw.headers["Content-Type"] == "image/svg+xml"
    assert raw.headers["Content-Security-Policy"] == (
        "default-src 'none'; style-src 'unsafe-inline'; sandbox"
    )
    assert raw.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ("{'image/png': 'not base64 at all !!!'}", "invalid base64"),
        ("{'image/png': base64.b64encode(b'GIF89a' + b'0' * 30).decode()}", "GIF labelled PNG"),
        ("{'image/png': 12345}", "wrong JSON type"),
        ("{'image/jpeg': ['a', 'b']}", "list for a binary type"),
        ("{'image/svg+xml': '<html><body>no svg here</body></html>'}", "not an SVG"),
        ("{'image/png': ''}", "empty"),
    ],
)
async def test_malformed_images_are_rejected_and_counted(jp_fetch, new_kernel, data, why):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    reply = await kernel.run(MAKE_PNG + f"publish({data})\n"
                             "publish({'image/png': base64.b64encode(make_png(2, 2)).decode()})")
    assert reply["status"] == "ok"
    listing = await images(jp_fetch, kernel.kernel_id)
    assert listing["rejected"] == 1, why
    assert [i["width"] for i in listing["images"]] == [2], "the good image still gets in"


async def test_duplicates_are_kept_once_and_update_display_replaces(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(
        MAKE_PNG + "png = base64.b64encode(make_png(3, 3)).decode()\n"
        "publish({'image/png': png}); publish({'image/png': png})\n"
        "publish({'image/png': base64.b64encode(make_png(4, 4)).decode()}, display_id='live')"
    )
    listing = await images(jp_fetch, kernel.kernel_id)
    assert sorted(i["width"] for i in listing["images"]) == [3, 4]
    await kernel.run(
        "publish({'image/png': base64.b64encode(make_png(5, 5)).decode()}, "
        "display_id='live', update=True)"
    )
    listing = await images(jp_fetch, kernel.kernel_id)
    assert sorted(i["width"] for i in listing["images"]) == [3, 5]
    updated = next(i for i in listing["images"] if i["width"] == 5)
    assert updated["display_id"] == "live" and updated["execution_count"] == 2


class TestSmallCaps:
    @pytest.fixture
    def jp_server_config(self, gateway_url):  # type: ignore[no-untyped-def]
        return server_config(gateway_url, KernelStateApp={
            "max_images": 10, "max_image_bytes": 20_000, "max_image_total_bytes": 1_000_000,
            "history_entries": 3, "history_output_chars": 100, "keep_first_images": 3,
            "image_code_chars": 100,
        })

    async def test_flood_is_bounded_and_counted(self, jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
        kernel = await new_kernel()
        await kernel.run(
            MAKE_PNG + "for i in range(250):  # distinct images (salt < 256)\n"
            "    publish({'image/png': base64.b64encode(make_png(2, 2, salt=i)).decode()})\n"
            "publish({'image/png': base64.b64encode(make_png(200, 200, salt=7) + b'0' * 30000)"
            ".decode()})"
        )
        listing = await images(jp_fetch, kernel.kernel_id)
        assert len(listing["images"]) == 13 and listing["total"] == 13
        assert listing["dropped"] == 237
        assert (listing["keep_first"], listing["keep_last"]) == (3, 10)
        assert listing["rejected"] == 1, "the oversized image is rejected"
        assert kernel.state.images.total_bytes <= 1_000_000
        # The first three and the newest ten: the rest of the flood is dropped in between.
        assert [i["seq"] for i in listing["images"]] == [1, 2, 3, *range(241, 251)]
        code = MAKE_PNG + "for i in range(250):  # distinct images (salt < 256)"
        assert {(i["code"], i["code_truncated"]) for i in listing["images"]} == {
            (code[:100], True)}

    async def test_history_is_bounded(self, jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
        kernel = await new_kernel()
        for i in range(5):
            await kernel.run(f"print('line {i} ' * 50)")
        history = await get_history(jp_fetch, kernel.kernel_id, **{"limit": "100"})
        assert history["total"] == 5 and len(history["entries"]) == 3
        entry = history["entries"][-1]
        assert entry["code"] == "print('line 4 ' * 50)"
        assert entry["output"].startswith("line 4 line 4")
        assert "more characters]" in entry["output"]
        assert len(entry["output"].split("\n… [")[0]) == 100


async def test_a_loop_of_plots_keeps_the_sessions_first_images(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    first_cell = (MAKE_PNG + "publish({'image/png': base64.b64encode(make_png(9, 9)).decode()})\n"
                  "from IPython.display import SVG, display\n"
                  "display(SVG('<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"4\" "
                  "height=\"3\"/>'))")
    await kernel.run(first_cell)
    loop = ("for i in range(60):\n"
            "    publish({'image/png': base64.b64encode(make_png(3, 3, salt=i)).decode()})")
    await kernel.run(loop)
    listing = await images(jp_fetch, kernel.kernel_id)
    assert listing["more"] == 0 and listing["total"] == 60 == len(listing["images"])
    assert listing["dropped"] == 2 and (listing["keep_first"], listing["keep_last"]) == (10, 50)
    # The first cell's plot and SVG are still there, with their cell and ordinal.
    png, svg = listing["images"][:2]
    assert (png["seq"], png["width"], png["execution_count"]) == (1, 9, 1)
    assert (svg["seq"], svg["mime"], svg["execution_count"]) == (2, "image/svg+xml", 1)
    assert png["code"] == svg["code"] == first_cell and not png["code_truncated"]
    # Then the loop's first eight, a gap of two, and its last fifty.
    seqs = [i["seq"] for i in listing["images"]]
    assert seqs == [*range(1, 11), *range(13, 63)]
    assert {i["code"] for i in listing["images"][2:]} == {loop}
    assert {i["execution_count"] for i in listing["images"][2:]} == {2}
    # A page at a time, through the cursor, gives the same images.
    page = await images(jp_fetch, kernel.kernel_id, limit=25)
    rest = await images(jp_fetch, kernel.kernel_id, since=page["next_since"])
    assert [i["seq"] for i in page["images"] + rest["images"]] == seqs


async def test_history_records_steps_errors_and_durations(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run("print('hello')\n1 + 1")
    await kernel.run("import time; time.sleep(0.2)")
    await kernel.run("1 / 0")
    history = await get_history(jp_fetch, kernel.kernel_id, **{"limit": "10"})
    first, slow, failed = history["entries"][-3:]
    assert first["output"] == "hello\n2\n" and first["error"] is None
    assert first["execution_count"] == 1
    assert slow["duration_ms"] >= 200
    assert failed["error"] == {"ename": "ZeroDivisionError", "evalue": "division by zero"}
    assert not failed["success"]
    # Our own probe requests never appear.
    await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
    again = await get_history(jp_fetch, kernel.kernel_id)
    assert again["total"] == history["total"]


async def test_images_survive_a_restart_marked_with_their_epoch(jp_fetch, new_kernel):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    await kernel.run(MAKE_PNG + "publish({'image/png': base64.b64encode(make_png(6, 6)).decode()})")
    await kernel.restart(jp_fetch)
    await kernel.wait_idle()
    await kernel.run(MAKE_PNG + "publish({'image/png': base64.b64encode(make_png(7, 7)).decode()})")
    listing = await images(jp_fetch, kernel.kernel_id)
    epochs = {i["width"]: i["epoch"] for i in listing["images"]}
    assert epochs[7] > epochs[6]


async def test_images_from_a_non_python_kernel(jp_fetch, user_client, other_language_kernelspec):  # type: ignore[no-untyped-def]
    kernel_id = await start_kernel(jp_fetch, other_language_kernelspec)
    client = await user_client(kernel_id)
    await client.run(MAKE_PNG + "publish({'image/png': base64.b64encode(make_png(8, 8)).decode()})")
    listing = await images(jp_fetch, kernel_id)
    assert [i["width"] for i in listing["images"]] == [8]
    history = await get_history(jp_fetch, kernel_id)
    assert history["total"] == 1


@pytest.mark.parametrize("image_id", ["0123456789abcdef", "0123456789ABCDEF", "x" * 300])
async def test_unknown_images_get_404(jp_fetch, new_kernel, image_id):  # type: ignore[no-untyped-def]
    kernel = await new_kernel()
    with pytest.raises(HTTPClientError) as e:
        await jp_fetch("api", "kernel-state", "kernels", kernel.kernel_id, "images", image_id)
    assert e.value.code == 404
    assert json.loads(e.value.response.body)["message"].startswith("Image not found")


# Eight kernels started at once: run alone (scripts/test.sh), not beside other files' kernels.
@pytest.mark.alone
async def test_many_kernels_at_once(jp_fetch, user_client):  # type: ignore[no-untyped-def]
    ids = [await start_kernel(jp_fetch) for _ in range(3)]
    clients = await asyncio.gather(*(user_client(kid) for kid in ids))
    replies = await asyncio.gather(*(
        c.run(MAKE_PNG + f"png = make_png({n + 2}, 2)\n"
              "publish({'image/png': base64.b64encode(png).decode()})")
        for n, c in enumerate(clients)
    ))
    assert [r["status"] for r in replies] == ["ok"] * 3
    for n, kid in enumerate(ids):
        listing = await images(jp_fetch, kid)
        assert [i["width"] for i in listing["images"]] == [n + 2]
