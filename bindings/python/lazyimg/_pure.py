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


def _rows(value: object, name: str) -> int:
    """A row index or count for a size_t parameter: ctypes would wrap a
    negative int to a huge row without a word."""
    try:
        number = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{name} must be an int, not {type(value).__name__}") from None
    if number < 0:
        raise ValueError(f"{name} must not be negative, got {number}")
    if number >= 1 << (8 * ctypes.sizeof(ctypes.c_size_t)):
        raise ValueError(f"{name} is too large: {number}")
    return number


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
    with the ticket whose one event follows."""

    __slots__ = ("_status", "_image", "_ticket")

    def __init__(self, status: Status, image: Image | None, ticket: int) -> None:
        self._status, self._image, self._ticket = status, image, ticket

    @property
    def status(self) -> Status:
        """Status.OK (image set), PENDING or DEFERRED (ticket set)."""
        return self._status

    @property
    def image(self) -> Image | None:
        """The Image for OK, else None."""
        return self._image

    @property
    def ticket(self) -> int:
        """The ticket whose one event follows PENDING or DEFERRED, else 0."""
        return self._ticket

    def __repr__(self) -> str:
        return f"<lazyimg.RequestResult {self._status.name} image={self._image!r} ticket={self._ticket}>"


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
        FAILED) follows. Raises OutOfRangeError, NoImageError (a None row),
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
