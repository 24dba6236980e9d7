"""IOPub messages too large for any consumer: size-checked before they are decoded.

With a 1 MiB image cap the largest IOPub content anything can keep is about 2.3 MiB
(the image as base64 plus a margin): a 3 MB picture and a 4 MB error are dropped undecoded
on ZMQ (decoded by the gateway client, then let go, over a gateway), yet counted as
rejected, noted in the history, and the kernel's tracking goes on.
"""

from __future__ import annotations

import pytest

from jupyter_kernel_state.service.channels import ZmqChannels

from .conftest import BOTH_BACKENDS, EVERY_GATEWAY, server_config
from .kernel_utils import get_json, validate
from .test_images_history import MAKE_PNG, get_history, images

pytestmark = [pytest.mark.kernel, BOTH_BACKENDS, EVERY_GATEWAY]

IMAGE_CAP = 1024 * 1024

BIG_IMAGE = (
    "import base64\n"
    "from IPython.display import publish_display_data\n"
    "print('before the picture')\n"
    "publish_display_data({'image/png': base64.b64encode("
    "b'\\x89PNG\\r\\n\\x1a\\n' + bytes(3_000_000)).decode(), 'text/plain': '<big>'})\n"
    "x = 41"
)


class TestOverLimit:
    @pytest.fixture
    def jp_server_config(self, gateway_url):  # type: ignore[no-untyped-def]
        return server_config(gateway_url, KernelStateApp={"max_image_bytes": IMAGE_CAP})

    async def test_big_messages_are_counted_noted_and_dropped(self, jp_fetch, new_kernel,
                                                              kernel_backend):  # type: ignore[no-untyped-def]
        kernel = await new_kernel()
        limit = kernel.state._limits.iopub_message_bytes()
        assert 2 * IMAGE_CAP < limit < 3 * IMAGE_CAP
        connection = kernel.state.connection()
        assert connection.oversized_messages == 0

        reply = await kernel.run(BIG_IMAGE)
        assert reply["status"] == "ok"
        # The user's own client got the whole picture: only our copy was dropped. (Read what
        # `run` left too: the server's websocket nudge may share this client's message ids.)
        seen = kernel.outputs + await kernel.drain_iopub()
        shown = [m for m in seen if m["msg_type"] == "display_data"]
        assert len(shown) == 1 and len(shown[0]["content"]["data"]["image/png"]) > limit

        listing = await images(jp_fetch, kernel.kernel_id)
        assert listing["images"] == [] and listing["rejected"] == 1
        assert kernel.state.images.rejected_undecoded == 1
        history = await get_history(jp_fetch, kernel.kernel_id)
        entry = history["entries"][-1]
        assert entry["code"] == BIG_IMAGE and entry["execution_count"] == 1
        assert entry["success"] and entry["image_ids"] == []
        assert entry["output"].startswith("before the picture\n[output of ")
        assert entry["output"].endswith(" bytes not kept]\n")
        size = int(entry["output"].split("[output of ")[1].split(" bytes")[0].replace(",", ""))
        assert size > 4_000_000  # 3 MB as base64

        # An error past the limit: failed, said so, nothing of it kept.
        reply = await kernel.run("raise ValueError('v' * 2_000_000)")
        assert reply["status"] == "error"
        entry = (await get_history(jp_fetch, kernel.kernel_id))["entries"][-1]
        assert entry["execution_count"] == 2 and not entry["success"]
        assert entry["error"]["ename"] == "Error"
        assert entry["error"]["evalue"].endswith(" bytes not kept]")
        assert len(entry["output"]) < 200

        assert connection.oversized_messages == 2
        assert connection.bad_messages == 0
        if kernel_backend == "local":
            # Over ZMQ these two were never deserialized: only their small frames were.
            channels = connection._channels
            assert isinstance(channels, ZmqChannels)
            assert channels.oversized_messages == 2

        # Tracking goes on: a following cell is seen, its variables are answered.
        generation = kernel.state.tracker.generation
        await kernel.run(MAKE_PNG + "y = x + 1\npublish({'image/png': base64.b64encode("
                         "make_png(20, 10)).decode()})")
        assert kernel.state.tracker.generation == generation + 1
        snapshot = await get_json(jp_fetch, "kernels", kernel.kernel_id, "variables")
        validate(snapshot, "Snapshot")
        assert not snapshot["stale"] and not snapshot["kernel_busy"]
        values = {v["name"]: v["preview"] for v in snapshot["variables"]}
        assert values["x"] == "41" and values["y"] == "42"
        # Messages under the limit take the usual path: this picture is kept.
        listing = await images(jp_fetch, kernel.kernel_id)
        assert [(i["width"], i["height"]) for i in listing["images"]] == [(20, 10)]
        assert listing["rejected"] == 1
        assert listing["images"][0]["execution_count"] == 3
        assert connection.oversized_messages == 2
