"""The per-frame calls and the Image handle in Python, through ctypes: what
lazyimg/_speedups.c does in C, used when that module was not built (or with
LAZYIMG_PURE_PYTHON=1). The two have the same names, arguments, results and
errors: make check-python runs the binding's tests on this one,
check-python-wheel on the C one, and tests/test_api_shape.py compares their
docstrings and signatures."""
from __future__ import annotations

import ctypes
import math
import operator
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ._library import lib
from .constants import Status

if TYPE_CHECKING:
    from .image import Image

_image_type: type[Image] | None = None
_error_for: Callable[[int], BaseException] = RuntimeError
_statuses: tuple[Status, ...] = ()


def configure(functions: Mapping[str, int], image_type: type[Image], error_for: Callable[[int], BaseException],
              statuses: tuple[Status, ...]) -> None:
    """The Image class to make, the callable turning a negative status into
    its exception, and the Status members by value (`functions`, the
    library's addresses, is for the C module: ctypes has them already)."""
    global _image_type, _error_for, _statuses
    _image_type, _error_for, _statuses = image_type, error_for, statuses


def wrap(pointer: int) -> Image:
    """An Image taking over one lazyimg_image reference."""
    if not pointer:
        raise ValueError("NULL lazyimg_image")
    assert _image_type is not None, "configure() first"
    image: Image = object.__new__(_image_type)
    object.__setattr__(image, "_pointer", pointer)
    return image


def _whole(value: object, name: str, bits: int) -> int:
    """An int for an unsigned C parameter of `bits` bits: ctypes would wrap a
    negative int to a huge one without a word."""
    try:
        number = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{name} must be an int, not {type(value).__name__}") from None
    if number < 0:
        raise ValueError(f"{name} must not be negative, got {number}")
    if number >= 1 << bits:
        raise ValueError(f"{name} is too large: {number}")
    return number


def _rows(value: object, name: str) -> int:
    """A row index or count for a size_t parameter."""
    return _whole(value, name, 8 * ctypes.sizeof(ctypes.c_size_t))


def _status(status: int) -> Status:
    if status < 0:
        raise _error_for(status)
    return _statuses[status] if status < len(_statuses) else Status(status)


class ImageBase:
    """The lazyimg_image reference under lazyimg.Image (made only by the
    library's answers)."""

    __slots__ = ("_pointer", "__weakref__")
    _pointer: int

    def __del__(self) -> None:
        pointer = getattr(self, "_pointer", 0)
        if pointer:
            object.__setattr__(self, "_pointer", 0)
            lib.lazyimg_image_release(pointer)

    @property
    def width(self) -> int:
        """Width in pixels after downsampling (0 for an encoded image)."""
        return int(lib.lazyimg_image_width(self._pointer))

    @property
    def height(self) -> int:
        """Height in pixels after downsampling (0 for an encoded image)."""
        return int(lib.lazyimg_image_height(self._pointer))

    @property
    def source_width(self) -> int:
        """Width in the file, upright (0 for an encoded image)."""
        return int(lib.lazyimg_image_source_width(self._pointer))

    @property
    def source_height(self) -> int:
        """Height in the file, upright (0 for an encoded image)."""
        return int(lib.lazyimg_image_source_height(self._pointer))

    @property
    def stride(self) -> int:
        """Bytes from one row to the next (0 for an encoded image)."""
        return int(lib.lazyimg_image_stride(self._pointer))

    @property
    def is_animated(self) -> bool:
        """True when the file holds more frames (these pixels are the first)."""
        return bool(lib.lazyimg_image_is_animated(self._pointer))

    @property
    def _pixel_format(self) -> int:
        return int(lib.lazyimg_image_pixel_format(self._pointer))

    @property
    def _codec(self) -> int:
        return int(lib.lazyimg_image_codec(self._pointer))


class RequestResult:
    """What Loader.request answered: OK with image, or PENDING / DEFERRED
    with the ticket whose one event follows, or PLACEHOLDER with both."""

    __slots__ = ("_status", "_image", "_ticket")

    def __init__(self, status: Status, image: Image | None, ticket: int) -> None:
        self._status, self._image, self._ticket = status, image, ticket

    @property
    def status(self) -> Status:
        """Status.OK (image set), PENDING or DEFERRED (ticket set), or PLACEHOLDER
        (both: the drawn placeholder, and the ticket that brings the image)."""
        return self._status

    @property
    def image(self) -> Image | None:
        """The Image for OK, the placeholder for PLACEHOLDER, else None."""
        return self._image

    @property
    def ticket(self) -> int:
        """The ticket whose one event follows PENDING, DEFERRED or PLACEHOLDER, else 0."""
        return self._ticket

    def __repr__(self) -> str:
        return f"<lazyimg.RequestResult {self._status.name} image={self._image!r} ticket={self._ticket}>"


_NEVER = (1 << 64) - 1  # lazyimg_frame_at's UINT64_MAX: no next frame


class FrameResult:
    """What Loader.frame_at or Loader.frame answered: OK with the frame's
    image, NOT_YET while a decode thread makes it (keep showing the last
    frame, ask again), or MISS when the row's image is not in memory
    (request it again)."""

    __slots__ = ("_status", "_image", "_index", "_next_ms")

    def __init__(self, status: Status, image: Image | None, index: int, next_ms: int | None) -> None:
        self._status, self._image, self._index, self._next_ms = status, image, index, next_ms

    @property
    def status(self) -> Status:
        """Status.OK (image set), NOT_YET or MISS."""
        return self._status

    @property
    def image(self) -> Image | None:
        """The frame's Image for OK, else None."""
        return self._image

    @property
    def index(self) -> int:
        """The frame's index (0 is the first), also for NOT_YET."""
        return self._index

    @property
    def next_ms(self) -> int | None:
        """frame_at: when the next frame is due, on the caller's clock; None
        for a still, once the last play has ended, and for frame()."""
        return self._next_ms

    def __repr__(self) -> str:
        return (f"<lazyimg.FrameResult {self._status.name} image={self._image!r} index={self._index} "
                f"next_ms={self._next_ms}>")


class LoaderBase:
    """The per-frame calls of lazyimg.Loader, in Python."""

    _handle: int = 0  # the lazyimg_loader *; 0 once closed or inherited by fork

    def _closed_error(self) -> BaseException:
        raise NotImplementedError

    def _live_handle(self) -> int:
        if not self._handle:
            raise self._closed_error()
        return self._handle

    def request(self, row: int, /) -> RequestResult:
        """lazyimg_request, the cellForRow call; never blocks. A RequestResult:
        status OK with its Image from memory, or PENDING / DEFERRED (held back
        while the list moves fast) with the ticket whose one event (IMAGE or
        FAILED) follows; PLACEHOLDER when the row has a placeholder hash (see
        set_placeholders): the drawn placeholder as image, and the ticket.
        Raises OutOfRangeError, NoImageError (a None row),
        BadURLError, or the error of a URL that failed less than retry_after_ms
        ago."""
        handle = self._live_handle()
        image = ctypes.c_void_p()
        ticket = ctypes.c_uint64()
        status = _status(lib.lazyimg_request(handle, _rows(row, "row"), ctypes.byref(image), ctypes.byref(ticket)))
        return RequestResult(status, wrap(image.value) if image.value else None, ticket.value)

    def lookup(self, row: int, /) -> Image | None:
        """lazyimg_lookup: the Image in memory for `row`, or None. Never
        schedules anything."""
        handle = self._live_handle()
        image = ctypes.c_void_p()
        _status(lib.lazyimg_lookup(handle, _rows(row, "row"), ctypes.byref(image)))
        return wrap(image.value) if image.value else None

    def set_visible_range(self, first: int, count: int) -> None:
        """lazyimg_set_visible_range: rows first .. first+count-1 are on screen
        (clamped to the list). Work for rows that left the visible range, the
        landing zone and the prefetch window is cancelled (their tickets end
        CANCELLED). Call it when the range changes."""
        handle = self._live_handle()
        _status(lib.lazyimg_set_visible_range(handle, _rows(first, "first"), _rows(count, "count")))

    def set_scroll_state(self, state: int, velocity_rows_per_second: float = 0.0) -> None:
        """lazyimg_set_scroll_state: the list's scroll state (a ScrollState) and
        speed in rows per second (positive = towards higher rows); call it every
        frame while the list moves. Moving faster than
        slow_scroll_rows_per_second, new rows answer DEFERRED; IDLE loads."""
        handle = self._live_handle()
        if not isinstance(state, int) or not 0 <= state <= 2:
            raise ValueError(f"state must be a ScrollState (IDLE, DRAGGING or DECELERATING), got {state!r}")
        try:
            if isinstance(velocity_rows_per_second, (str, bytes, bytearray)):
                raise TypeError  # float() would parse it; C's PyFloat_AsDouble does not
            velocity = float(velocity_rows_per_second)
        except (TypeError, ValueError):
            raise TypeError("velocity_rows_per_second must be a number, not "
                            f"{type(velocity_rows_per_second).__name__}") from None
        if math.isnan(velocity):
            raise ValueError("velocity_rows_per_second must be a number, got nan")
        _status(lib.lazyimg_set_scroll_state(handle, int(state), velocity))

    def frame_at(self, row: int, time_ms: int) -> FrameResult:
        """lazyimg_frame_at: the frame of the row's animation shown `time_ms`
        milliseconds after the caller started playing it (its own clock);
        never blocks. A FrameResult: OK with the frame (a still image is its
        own frame at any time), NOT_YET while it is decoded (no event
        follows: ask again on the next frame), or MISS when the row's image
        is not in memory; with the frame's index and when the next is due.
        Raises OutOfRangeError, NoImageError (a None row), ValueError for a
        negative time_ms."""
        handle = self._live_handle()
        row, time_ms = _rows(row, "row"), _whole(time_ms, "time_ms", 64)
        image = ctypes.c_void_p()
        index = ctypes.c_uint32()
        next_ms = ctypes.c_uint64()
        status = _status(lib.lazyimg_frame_at(handle, row, time_ms, ctypes.byref(image), ctypes.byref(index),
                                              ctypes.byref(next_ms)))
        return FrameResult(status, wrap(image.value) if image.value else None, index.value,
                           None if next_ms.value == _NEVER else next_ms.value)

    def frame(self, row: int, index: int) -> FrameResult:
        """lazyimg_frame: frame `index` of the row's animation (0 is the
        first, also of a still image), as frame_at answers it; next_ms is
        None. Raises OutOfRangeError for a row past the list or a frame past
        the last, NoImageError (a None row)."""
        handle = self._live_handle()
        row, number = _rows(row, "row"), _whole(index, "index", 64)
        image = ctypes.c_void_p()
        if number > 0xFFFFFFFF:  # past any animation's last frame (at most 65,536)
            raise _error_for(int(Status.E_OUT_OF_RANGE))
        status = _status(lib.lazyimg_frame(handle, row, number, ctypes.byref(image)))
        return FrameResult(status, wrap(image.value) if image.value else None, number, None)
