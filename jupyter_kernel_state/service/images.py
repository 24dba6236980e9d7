"""Images a kernel produced, captured from IOPub: a bounded ring buffer per kernel.

Sources: ``display_data``, ``execute_result`` and ``update_display_data`` carrying
image/png, image/jpeg, image/gif, image/webp or image/svg+xml, from any client's
executions (never from our probe's). Each image keeps the execution count and the code
(cut to ``code_chars``) of the cell that displayed it. The store holds the first
``keep_first`` images and the latest ``max_images``: when a loop floods it, the images
between are dropped (oldest first), so the first plots of a session stay findable. The
total byte cap drops the oldest of the latest first, then the first ones. Oversized,
undecodable or mislabelled data is rejected; drops and rejections are counted.

A message too large for any consumer reaches us with its content never decoded
(``channels.py``): an empty ``content`` and ``UNDECODED_KEY`` giving the size of what was
dropped. A display of that kind is counted as rejected without being looked at.
"""

from __future__ import annotations

import base64
import binascii
import collections
import datetime
import hashlib
import itertools
from dataclasses import dataclass, field
from typing import Any

from . import image_formats

# Parent requests whose execution count we remember to tag their images.
MAX_PARENTS_REMEMBERED = 1024
# Parent requests whose code (cut to ``code_chars``) we remember: images come while their
# cell runs, so the latest few are enough (a display updated long after its cell gets
# its execution count but no code).
MAX_CODES_REMEMBERED = 32
# Set on an IOPub message whose content was too large to decode: the bytes dropped
# (content frame plus buffers). Its ``content`` is then an empty dict.
UNDECODED_KEY = "kernel_state_undecoded_bytes"
# Messages that may carry images.
DISPLAY_TYPES = ("display_data", "execute_result", "update_display_data")
# Slack above an image's base64 size for the rest of a display's bundle and metadata.
MESSAGE_MARGIN_BYTES = 1024 * 1024


@dataclass(frozen=True)
class ImageLimits:
    #: The latest images kept (besides the first ``keep_first``).
    max_images: int = 50
    max_image_bytes: int = 5 * 1024 * 1024
    max_total_bytes: int = 50 * 1024 * 1024
    #: The first images of the kernel kept whatever comes after them (0: none).
    keep_first: int = 10
    #: Characters of the displaying cell's code kept with each image.
    code_chars: int = 2000

    def largest_message(self) -> int:
        """Bytes of IOPub content (plus buffers) past which no image of it can be kept:
        the largest image as base64 (4/3 of its bytes), plus a margin for other MIME
        types and metadata in the same bundle."""
        return -(-self.max_image_bytes * 4 // 3) + 4 + MESSAGE_MARGIN_BYTES


@dataclass
class StoredImage:
    id: str
    seq: int
    mime: str
    data: bytes = field(repr=False)
    width: int | None
    height: int | None
    sha256: str
    execution_count: int | None
    msg_id: str | None
    display_id: str | None
    created_at: str
    epoch: int
    generation: int
    #: The code of the cell that displayed it (cut to ``code_chars``), None when unknown.
    code: str | None = None
    code_truncated: bool = False

    def meta(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "seq": self.seq,
            "mime": self.mime,
            "bytes": len(self.data),
            "width": self.width,
            "height": self.height,
            "sha256": self.sha256,
            "execution_count": self.execution_count,
            "msg_id": self.msg_id,
            "display_id": self.display_id,
            "created_at": self.created_at,
            "epoch": self.epoch,
            "generation": self.generation,
            "code": self.code,
            "code_truncated": self.code_truncated,
        }


def _decode(mime: str, value: Any, max_bytes: int) -> bytes | None:
    """The image bytes of one MIME bundle entry, or None when it must be rejected."""
    if mime == "image/svg+xml":
        if isinstance(value, list):  # nbformat allows multiline strings as lists
            if not all(isinstance(part, str) for part in value):
                return None
            value = "".join(value)
        if not isinstance(value, str):
            return None
        if len(value) > max_bytes:  # ≥ 1 byte per character: reject before encoding
            return None
        data = value.encode("utf-8", "replace")
    else:
        if not isinstance(value, str):
            return None
        if len(value) * 3 // 4 > max_bytes + 3:  # decide before decoding a flood
            return None
        try:
            data = base64.b64decode(value, validate=False)
        except (binascii.Error, ValueError):
            return None
    if not data or len(data) > max_bytes or not image_formats.matches(mime, data):
        return None
    return data


class ImageStore:
    def __init__(self, limits: ImageLimits | None = None) -> None:
        self.limits = limits or ImageLimits()
        self._images: collections.OrderedDict[str, StoredImage] = collections.OrderedDict()
        self._by_hash: dict[str, str] = {}
        self._total_bytes = 0
        self._seq = 0
        self.dropped = 0
        self.rejected = 0
        self.rejected_undecoded = 0  # of which: displays too large to be decoded at all
        self.deduplicated = 0
        self._execution_counts: collections.OrderedDict[str, int] = collections.OrderedDict()
        self._codes: collections.OrderedDict[str, tuple[str, bool]] = collections.OrderedDict()

    def __len__(self) -> int:
        return len(self._images)

    @property
    def total_bytes(self) -> int:
        return self._total_bytes

    @property
    def next_since(self) -> int:
        return self._seq

    # -- IOPub -------------------------------------------------------------------------

    def handle(
        self, msg: dict[str, Any], own: bool, epoch: int, generation: int = 0
    ) -> list[str]:
        """Take the images of one IOPub message; return the ids stored."""
        if own:
            return []
        msg_type = msg.get("header", {}).get("msg_type")
        content = msg.get("content")
        if not isinstance(content, dict):
            return []
        parent_id = (msg.get("parent_header") or {}).get("msg_id")
        if msg_type == "execute_input":
            self._remember_count(parent_id, content.get("execution_count"))
            self._remember_code(parent_id, content.get("code"))
            return []
        if msg_type not in DISPLAY_TYPES:
            return []
        if msg.get(UNDECODED_KEY) is not None:  # far past max_image_bytes: never decoded
            self.rejected += 1
            self.rejected_undecoded += 1
            return []
        data = content.get("data")
        if not isinstance(data, dict):
            return []
        mimes = [m for m in image_formats.IMAGE_MIMES if m in data]
        if not mimes:
            return []
        transient = content.get("transient")
        display_id = transient.get("display_id") if isinstance(transient, dict) else None
        display_id = display_id if isinstance(display_id, str) else None
        if msg_type == "update_display_data" and display_id is not None:
            self._remove_display(display_id)
        count = content.get("execution_count")
        if not isinstance(count, int):
            count = self._execution_counts.get(parent_id) if isinstance(parent_id, str) else None
        code = self._codes.get(parent_id) if isinstance(parent_id, str) else None
        # A bundle may carry the same picture in several formats: keep the first we accept.
        for mime in mimes:
            image = self._add(mime, data[mime], count, msg, display_id, epoch, generation)
            if image is not None:
                if code is not None:
                    image.code, image.code_truncated = code
                return [image.id]
        return []

    def _remember_count(self, parent_id: Any, count: Any) -> None:
        if isinstance(parent_id, str) and isinstance(count, int):
            self._execution_counts[parent_id] = count
            while len(self._execution_counts) > MAX_PARENTS_REMEMBERED:
                self._execution_counts.popitem(last=False)

    def _remember_code(self, parent_id: Any, code: Any) -> None:
        if not isinstance(parent_id, str) or not isinstance(code, str):
            return
        cap = max(0, self.limits.code_chars)
        self._codes[parent_id] = (code[:cap], len(code) > cap)
        while len(self._codes) > MAX_CODES_REMEMBERED:
            self._codes.popitem(last=False)

    def _add(
        self, mime: str, value: Any, count: int | None, msg: dict[str, Any],
        display_id: str | None, epoch: int, generation: int,
    ) -> StoredImage | None:
        data = _decode(mime, value, self.limits.max_image_bytes)
        if data is None:
            self.rejected += 1
            return None
        digest = hashlib.sha256(data).hexdigest()
        self._seq += 1
        existing_id = self._by_hash.get(digest)
        if existing_id is not None:
            # Identical picture: keep one copy, but it is new again for `since` readers.
            self.deduplicated += 1
            self._discard(existing_id)
        width, height = image_formats.dimensions(mime, data)
        created = msg.get("header", {}).get("date")
        image = StoredImage(
            id=digest[:16],
            seq=self._seq,
            mime=mime,
            data=data,
            width=width,
            height=height,
            sha256=digest,
            execution_count=count,
            msg_id=msg.get("header", {}).get("msg_id"),
            display_id=display_id,
            created_at=created.isoformat() if isinstance(created, datetime.datetime)
            else str(created or datetime.datetime.now(datetime.timezone.utc).isoformat()),
            epoch=epoch,
            generation=generation,
        )
        self._images[image.id] = image
        self._by_hash[digest] = image.id
        self._total_bytes += len(data)
        self._evict()
        return image

    def _discard(self, image_id: str) -> None:
        image = self._images.pop(image_id, None)
        if image is not None:
            self._total_bytes -= len(image.data)
            self._by_hash.pop(image.sha256, None)

    def _remove_display(self, display_id: str) -> None:
        for image_id in [i.id for i in self._images.values() if i.display_id == display_id]:
            self._discard(image_id)

    def _evict(self) -> None:
        """Past a cap, drop the oldest image after the first ``keep_first`` (the first
        ones too when only they are left and the bytes are still too many)."""
        keep_first = max(0, self.limits.keep_first)
        while self._images and (
            len(self._images) > keep_first + self.limits.max_images
            or self._total_bytes > self.limits.max_total_bytes
        ):
            held = iter(self._images)
            victim = next(itertools.islice(held, keep_first, None), None)
            self._discard(victim if victim is not None else next(iter(self._images)))
            self.dropped += 1

    # -- reading -----------------------------------------------------------------------

    def get(self, image_id: str) -> StoredImage | None:
        return self._images.get(image_id)

    def since_generation(self, generation: int) -> list[dict[str, Any]]:
        """Images captured while the kernel was at ``generation`` or later."""
        return [i.meta() for i in self._images.values() if i.generation >= generation]

    def listing(self, since: int = 0, limit: int = 50) -> dict[str, Any]:
        """Images with seq > since, oldest first, at most ``limit``; a cursor for the rest,
        the counters and what the store keeps (the first ``keep_first``, the latest
        ``keep_last``)."""
        newer = [image for image in self._images.values() if image.seq > since]
        page = newer[:limit]
        next_since = page[-1].seq if len(page) < len(newer) else max(since, self._seq)
        return {
            "images": [image.meta() for image in page],
            "next_since": next_since,
            "total": len(self._images),
            "more": len(newer) - len(page),
            "dropped": self.dropped,
            "rejected": self.rejected,
            "keep_first": max(0, self.limits.keep_first),
            "keep_last": self.limits.max_images,
        }
