"""Event: one lazyimg_event, copied out of the callback."""
import ctypes

from ._structs import EventStruct
from .constants import EventType, Source, Status, known
from .errors import LazyImgError
from .image import Image


def _end(field):
    return field.offset + field.size


class Event:
    """One event. IMAGE: `image` is an Image (its own reference). FAILED:
    `status` and `message` say why. DATA (a fetch's answer): `data` is the
    body as bytes, copied out of the callback. NEED_PAGE (a paged list nears
    its end): ticket 0, `row` is the row count then. `image` and `data` are
    None where they do not apply; `url` and `message` are str (bytes that are
    not UTF-8 are kept as surrogate escapes)."""

    __slots__ = ("type", "row", "ticket", "status", "http_status", "source", "url", "image", "message",
                 "data")

    def __init__(self, c_event):
        self.type = known(EventType, c_event.type)
        self.row = c_event.row
        self.ticket = c_event.ticket
        self.status = known(Status, c_event.status)
        self.http_status = c_event.http_status
        self.source = known(Source, c_event.source)
        self.url = _text(c_event.url)
        # The event is borrowed: retain the image to keep it past the callback.
        self.image = Image.retained(c_event.image) if c_event.image else None
        # A library older than this binding sends a shorter struct.
        size = c_event.struct_size
        self.message = _text(c_event.message) if size >= _end(EventStruct.message) else ""
        self.data = None
        if self.type == EventType.DATA and size >= _end(EventStruct.data_size):
            # Borrowed too, and NULL for an empty body: copy it now.
            self.data = ctypes.string_at(c_event.data, c_event.data_size) if c_event.data else b""

    @property
    def ok(self):
        """False for FAILED (a negative status), True for the others."""
        return self.status >= 0

    def error(self):
        """The LazyImgError this event stands for (None unless FAILED)."""
        if self.ok:
            return None
        return LazyImgError(self.status, self.message, url=self.url, row=self.row)

    def raise_for_status(self):
        """Raises error() for a FAILED event; returns the event otherwise."""
        if not self.ok:
            raise self.error()
        return self

    def __repr__(self):
        if not self.ok:
            what = f"{getattr(self.status, 'name', self.status)}: {self.message}"
        elif self.type == EventType.DATA:
            what = f"DATA {len(self.data)} bytes"
        elif self.type == EventType.NEED_PAGE:
            what = "NEED_PAGE"
        else:
            what = repr(self.image)
        return f"<lazyimg.Event row={self.row} ticket={self.ticket} {what}>"


def _text(value):
    return None if value is None else value.decode("utf-8", "surrogateescape")
