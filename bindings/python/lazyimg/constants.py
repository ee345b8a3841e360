"""The constants of lazyimg.h: its enums as IntEnums and its numeric macros.

C_ENUMS ties each IntEnum to its C type and constant prefix, so that
tests/test_header_match.py can compare every member with the compiled header
(LAZYIMG_E_HTTP is Status.E_HTTP). A constant added to the header is one line
here.
"""
from __future__ import annotations

import enum
from typing import TypeVar

from ._version import __version__

VERSION_MAJOR, VERSION_MINOR, VERSION_PATCH = (int(part) for part in __version__.split("."))
VERSION_NUMBER = VERSION_MAJOR * 1000000 + VERSION_MINOR * 1000 + VERSION_PATCH
TRIM_MODERATE = 1
TRIM_COMPLETE = 2


class _Open(enum.IntEnum):
    """An IntEnum that answers a value it has no member for with a member of
    that value, named UNKNOWN_<value>, so a newer library's codes pass through
    as the enum's type."""

    @classmethod
    def _missing_(cls, value: object) -> _Open | None:
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        member = int.__new__(cls, value)
        member._name_ = f"UNKNOWN_{value}"
        member._value_ = value
        return cls._value2member_map_.setdefault(value, member)  # type: ignore[return-value]


class Status(_Open):
    OK = 0
    PENDING = 1
    DEFERRED = 2
    MISS = 3
    TIMEOUT = 4
    # Since 0.4.0:
    PLACEHOLDER = 5
    NOT_YET = 6
    E_INVALID_ARGUMENT = -1
    E_OUT_OF_RANGE = -2
    E_BAD_URL = -3
    E_NETWORK = -4
    E_HTTP = -5
    E_DECODE = -6
    E_UNSUPPORTED = -7
    E_TOO_LARGE = -8
    E_IO = -9
    E_CANCELLED = -10
    E_NO_MEMORY = -11
    E_MISUSE = -12
    E_SHUTDOWN = -13
    E_NO_IMAGE = -14
    # Since 0.3.0:
    E_TLS = -15
    # Since 0.4.0:
    E_PROTOCOL = -16
    E_BAD_PLACEHOLDER = -17


class ScrollState(_Open):
    IDLE = 0
    DRAGGING = 1
    DECELERATING = 2


class Delivery(_Open):
    HOST = 0
    THREAD = 1


class Fit(_Open):
    INSIDE = 0
    FILL = 1


class PixelFormat(_Open):
    RGBA8 = 0
    BGRA8_PREMULTIPLIED = 1


class Output(_Open):
    PIXELS = 0
    ENCODED = 1


class Codec(_Open):
    UNKNOWN = 0
    JPEG = 1
    PNG = 2
    GIF = 3
    WEBP = 4
    # Since 0.4.0:
    AVIF = 5
    HEIF = 6


class EventType(_Open):
    IMAGE = 1
    FAILED = 2
    NEED_PAGE = 3
    # Since 0.3.0:
    DATA = 4
    # Since 0.4.0:
    PREVIEW = 5


class Source(_Open):
    NONE = 0
    MEMORY = 1
    DISK = 2
    NETWORK = 3


# Since 0.4.0:
class PlaceholderKind(enum.IntEnum):
    BLURHASH = 1
    THUMBHASH = 2


# IntEnum: (C enum type, prefix of its constants in lazyimg.h)
C_ENUMS: dict[type[enum.IntEnum], tuple[str, str]] = {
    Status: ("lazyimg_status", "LAZYIMG_"),
    ScrollState: ("lazyimg_scroll_state", "LAZYIMG_SCROLL_"),
    Delivery: ("lazyimg_delivery", "LAZYIMG_DELIVERY_"),
    Fit: ("lazyimg_fit", "LAZYIMG_FIT_"),
    PixelFormat: ("lazyimg_pixel_format", "LAZYIMG_PIXEL_"),
    Output: ("lazyimg_output", "LAZYIMG_OUTPUT_"),
    Codec: ("lazyimg_codec", "LAZYIMG_CODEC_"),
    EventType: ("lazyimg_event_type", "LAZYIMG_EVENT_"),
    Source: ("lazyimg_source", "LAZYIMG_SOURCE_"),
    PlaceholderKind: ("lazyimg_placeholder_kind", "LAZYIMG_PLACEHOLDER_"),
}

# Numeric macros of the header: LAZYIMG_<name> is this module's <name>.
C_MACROS = ("VERSION_MAJOR", "VERSION_MINOR", "VERSION_PATCH", "VERSION_NUMBER",
            "TRIM_MODERATE", "TRIM_COMPLETE")


E = TypeVar("E", bound=enum.IntEnum)


def known(enum_type: type[E], value: int) -> E:
    """The member for `value`; for a code newer than this binding (the header
    appends codes: callers must not treat the lists as closed) a member of
    its own, named UNKNOWN_<value>, equal to the int."""
    return enum_type(value)
