"""Event: one lazyimg_event, copied out of the callback."""
from __future__ import annotations

import ctypes
from typing import Any

from ._core import wrap
from ._library import lib
from ._structs import EventStruct
from .constants import EventType, Source, Status, known
from .errors import LazyImgError, error_for
from .image import Image


def _end(field: Any) -> int:
    return int(field.offset + field.size)


class Event:
    """One event of a ticket (or a NEED_PAGE).

    IMAGE: `image` is an Image (its own reference). PREVIEW (with
    preview_interval_ms set): `image` is a progressive JPEG's scans so far, at
    the box, before the ticket's one event, which still follows. FAILED: `status`,
    `message` and `http_status` say why; `cancelled` is True when the ticket
    was cancelled (its row left the screen, cancel(), set_items, close),
    which is no failure. DATA (a fetch's answer): `data` is the body as
    bytes, copied out of the callback. NEED_PAGE (a paged list nears its
    end): ticket 0, `row` is the row count then. `image` and `data` are None
    where they do not apply; `url` and `message` are str (bytes that are not
    UTF-8 are kept as surrogate escapes)."""

    __slots__ = {
        "type": "EventType.IMAGE, FAILED, DATA, NEED_PAGE or PREVIEW.",
        "row": "The row the ticket was requested for (NEED_PAGE: the row count; a fetch: 0).",
        "ticket": "The ticket request() or fetch() returned (0 for NEED_PAGE).",
        "status": "Status.OK, or the failure's status for FAILED.",
        "http_status": "The last HTTP status seen, 0 if none.",
        "source": "Where the answer came from: Source.MEMORY, DISK, NETWORK or NONE.",
        "url": "The row's URL (str; bytes that are not UTF-8 as surrogate escapes).",
        "image": "IMAGE, PREVIEW: the Image (its own reference); else None.",
        "message": "FAILED: why, in the library's words; else \"\".",
        "data": "DATA: the body as bytes; else None.",
    }

    type: EventType
    row: int
    ticket: int
    status: Status
    http_status: int
    source: Source
    url: str | None
    image: Image | None
    message: str
    data: bytes | None

    def __init__(self, c_event: EventStruct) -> None:
        """Copies the borrowed C event (for the binding's callback)."""
        self.type = known(EventType, c_event.type)
        self.row = c_event.row
        self.ticket = c_event.ticket
        self.status = known(Status, c_event.status)
        self.http_status = c_event.http_status
        self.source = known(Source, c_event.source)
        self.url = _text(c_event.url)
        # The event is borrowed: retain the image to keep it past the callback.
        self.image = wrap(lib.lazyimg_image_retain(c_event.image)) if c_event.image else None
        # A library older than this binding sends a shorter struct.
        size = c_event.struct_size
        self.message = (_text(c_event.message) or "") if size >= _end(EventStruct.message) else ""
        self.data = None
        if self.type == EventType.DATA and size >= _end(EventStruct.data_size):
            # Borrowed too, and NULL for an empty body: copy it now.
            self.data = ctypes.string_at(c_event.data, c_event.data_size) if c_event.data else b""

    @property
    def ok(self) -> bool:
        """False for FAILED (a negative status, cancelled included), True for
        the others."""
        return self.status >= 0

    @property
    def cancelled(self) -> bool:
        """True when the ticket ended CANCELLED: not a failure, nothing to
        report; ask again if the row comes back."""
        return self.status == Status.E_CANCELLED

    def error(self) -> LazyImgError | None:
        """The exception this event stands for (None unless FAILED): the
        LazyImgError subclass of its status (HTTPError, NetworkError,
        CancelledError, ...) with the event's message, url, row and
        http_status."""
        if self.ok:
            return None
        return error_for(self.status, self.message, url=self.url, row=self.row, http_status=self.http_status)

    def raise_for_status(self) -> Event:
        """Raises error() for a FAILED event; returns the event otherwise."""
        error = self.error()
        if error is not None:
            raise error
        return self

    def __repr__(self) -> str:
        if not self.ok:
            what = f"{self.status.name}: {self.message}"
        elif self.type == EventType.DATA:
            what = f"DATA {len(self.data or b'')} bytes"
        elif self.type == EventType.NEED_PAGE:
            what = "NEED_PAGE"
        elif self.type == EventType.PREVIEW:
            what = f"PREVIEW {self.image!r}"
        else:
            what = repr(self.image)
        return f"<lazyimg.Event row={self.row} ticket={self.ticket} {what}>"


def _text(value: bytes | None) -> str | None:
    return None if value is None else value.decode("utf-8", "surrogateescape")
