"""Event: one lazyimg_event, copied out of the callback."""
from ._structs import EventStruct
from .constants import EventType, Source, Status, known
from .errors import LazyImgError
from .image import Image

_MESSAGE_END = EventStruct.message.offset + EventStruct.message.size


class Event:
    """A completion for one ticket. `image` is an Image (its own reference)
    for IMAGE events, else None; `url` and `message` are str (bytes that are
    not UTF-8 are kept as surrogate escapes)."""

    __slots__ = ("type", "row", "ticket", "status", "http_status", "source", "url", "image", "message")

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
        self.message = _text(c_event.message) if c_event.struct_size >= _MESSAGE_END else ""

    @property
    def ok(self):
        return self.type == EventType.IMAGE

    def error(self):
        """The LazyImgError this event stands for (None for IMAGE)."""
        if self.ok:
            return None
        return LazyImgError(self.status, self.message, url=self.url, row=self.row)

    def raise_for_status(self):
        """Raises error() for a FAILED event; returns the event otherwise."""
        if not self.ok:
            raise self.error()
        return self

    def __repr__(self):
        what = repr(self.image) if self.ok else f"{getattr(self.status, 'name', self.status)}: {self.message}"
        return f"<lazyimg.Event row={self.row} ticket={self.ticket} {what}>"


def _text(value):
    return None if value is None else value.decode("utf-8", "surrogateescape")
