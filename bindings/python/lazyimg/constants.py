"""The constants of lazyimg.h: its enums as IntEnums and its numeric macros.

C_ENUMS ties each IntEnum to its C type and constant prefix, so that
tests/test_header_match.py can compare every member with the compiled header
(LAZYIMG_E_HTTP is Status.E_HTTP). A constant added to the header is one line
here.
"""
import enum

VERSION_MAJOR = 0
VERSION_MINOR = 3
VERSION_PATCH = 0
VERSION_NUMBER = 3000
TRIM_MODERATE = 1
TRIM_COMPLETE = 2


class Status(enum.IntEnum):
    OK = 0
    PENDING = 1
    DEFERRED = 2
    MISS = 3
    TIMEOUT = 4
    NOT_YET = 5
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


class ScrollState(enum.IntEnum):
    IDLE = 0
    DRAGGING = 1
    DECELERATING = 2


class Delivery(enum.IntEnum):
    HOST = 0
    THREAD = 1


class Fit(enum.IntEnum):
    INSIDE = 0
    FILL = 1


class PixelFormat(enum.IntEnum):
    RGBA8 = 0
    BGRA8_PREMULTIPLIED = 1


class Output(enum.IntEnum):
    PIXELS = 0
    ENCODED = 1


class Codec(enum.IntEnum):
    UNKNOWN = 0
    JPEG = 1
    PNG = 2
    GIF = 3
    WEBP = 4


class EventType(enum.IntEnum):
    IMAGE = 1
    FAILED = 2
    NEED_PAGE = 3
    # Since 0.3.0:
    DATA = 4


class Source(enum.IntEnum):
    NONE = 0
    MEMORY = 1
    DISK = 2
    NETWORK = 3


# IntEnum: (C enum type, prefix of its constants in lazyimg.h)
C_ENUMS = {
    Status: ("lazyimg_status", "LAZYIMG_"),
    ScrollState: ("lazyimg_scroll_state", "LAZYIMG_SCROLL_"),
    Delivery: ("lazyimg_delivery", "LAZYIMG_DELIVERY_"),
    Fit: ("lazyimg_fit", "LAZYIMG_FIT_"),
    PixelFormat: ("lazyimg_pixel_format", "LAZYIMG_PIXEL_"),
    Output: ("lazyimg_output", "LAZYIMG_OUTPUT_"),
    Codec: ("lazyimg_codec", "LAZYIMG_CODEC_"),
    EventType: ("lazyimg_event_type", "LAZYIMG_EVENT_"),
    Source: ("lazyimg_source", "LAZYIMG_SOURCE_"),
}

# Numeric macros of the header: LAZYIMG_<name> is this module's <name>.
C_MACROS = ("VERSION_MAJOR", "VERSION_MINOR", "VERSION_PATCH", "VERSION_NUMBER",
            "TRIM_MODERATE", "TRIM_COMPLETE")


def known(enum_type, value):
    """The member for value, or the plain int for a code this binding does not
    know yet (the header appends codes; callers must not treat the list as
    closed)."""
    try:
        return enum_type(value)
    except ValueError:
        return value
