"""lazyimg_config from Loader's and Session's keyword parameters.

Each field's value is checked here, before the library sees it, so that a bad
one is a TypeError or ValueError naming the field (the library's answer is
one INVALID_ARGUMENT for them all): ctypes would otherwise wrap a negative
size to a huge one and cut a string at its first NUL without a word. Values
equal to the parameter's default are left as lazyimg_config_init set them,
so a newer library keeps its own defaults.
"""
from __future__ import annotations

import ctypes
import enum
import math
import os
import re
import signal
from typing import Any, Callable, Mapping

from ._library import lib
from ._structs import ConfigStruct
from .constants import Delivery, Fit, Output, PixelFormat
from .errors import check

# lazyimg_config_init writes the library's sizeof(lazyimg_config), which is
# larger than ours when the library is newer: give it room, then tell it our
# size (it reads min(struct_size, its own) and defaults the rest).
_CONFIG_ROOM = max(ctypes.sizeof(ConfigStruct), 4096)

# (field, value, objects to keep alive until create) -> what ctypes stores.
Convert = Callable[[str, Any, list[object]], Any]


def _integer(low: int, high: int) -> Convert:
    def convert(name: str, value: Any, keep: list[object]) -> int:
        if isinstance(value, bool) or not hasattr(value, "__index__"):
            raise TypeError(f"{name} must be an int, not {type(value).__name__}")
        number = int(value.__index__())
        if not low <= number <= high:
            raise ValueError(f"{name} must be between {low} and {high}, got {number}")
        return number
    return convert


def _unsigned(bits: int, high: int | None = None) -> Convert:
    return _integer(0, (1 << bits) - 1 if high is None else high)


def _member(kind: type[enum.IntEnum]) -> Convert:
    def convert(name: str, value: Any, keep: list[object]) -> int:
        if isinstance(value, enum.Enum) and not isinstance(value, kind):
            raise TypeError(f"{name} must be a lazyimg.{kind.__name__}, not {value!r}")
        if isinstance(value, bool) or not isinstance(value, int) or value not in kind._value2member_map_:
            raise ValueError(f"{name} must be a lazyimg.{kind.__name__} "
                             f"({', '.join(m.name for m in kind)}), got {value!r}")
        return int(value)
    return convert


def _flag(name: str, value: Any, keep: list[object]) -> int:
    if value not in (0, 1) or not isinstance(value, int):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return int(value)


def _rate(name: str, value: Any, keep: list[object]) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return float(value)


def to_bytes(name: str, value: Any) -> bytes:
    """URLs, header lines and names cross as bytes, matched byte for byte:
    str is encoded as UTF-8, bytes pass untouched. A NUL would end the C
    string there, so it is refused."""
    if isinstance(value, str):
        data = value.encode("utf-8", "surrogateescape")
    elif isinstance(value, (bytes, bytearray)):
        data = bytes(value)
    else:
        raise TypeError(f"{name} must be str or bytes, not {type(value).__name__}")
    if b"\0" in data:
        raise ValueError(f"{name} must not contain a NUL character: {value!r}")
    return data


_CONTROL = re.compile(rb"[\x00-\x08\x0a-\x1f\x7f]")


def _text(name: str, value: Any, keep: list[object]) -> bytes:
    data = to_bytes(name, value)
    if _CONTROL.search(data):
        raise ValueError(f"{name} must not contain control characters (a tab is fine): {value!r}")
    return data


def _path(name: str, value: Any, keep: list[object]) -> bytes:
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError(f"{name} must be a path (str, bytes or os.PathLike), not {type(value).__name__}")
    return to_bytes(name, os.fsencode(value))


def _readable_file(name: str, value: Any, keep: list[object]) -> bytes:
    path = _path(name, value, keep)
    if not (os.path.isfile(path) and os.access(path, os.R_OK)):
        raise ValueError(f"{name} must be a readable file, got {value!r}")
    return path


# "Name: value": the name an HTTP token, the value without control bytes but HT.
_HEADER = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+:[^\x00-\x08\x0a-\x1f\x7f]*\Z")
# "scheme://host[:port]", no path.
_ORIGIN = re.compile(rb"[A-Za-z][A-Za-z0-9+.\-]*://[^/?#@\s]+\Z")


def _lines(pattern: re.Pattern[bytes], shape: str, forbidden: bytes | None = None) -> Convert:
    def convert(name: str, value: Any, keep: list[object]) -> Any:
        if isinstance(value, (str, bytes, bytearray)):
            raise TypeError(f"{name} is a list of strings, not one string")
        try:
            items = list(value)
        except TypeError:
            raise TypeError(f"{name} must be a list of str or bytes, not {type(value).__name__}") from None
        lines: list[bytes | None] = []
        for index, item in enumerate(items):
            line = to_bytes(f"{name}[{index}]", item)
            if not pattern.match(line) or (forbidden and line.split(b":", 1)[0].lower() == forbidden):
                raise ValueError(f"{name}[{index}] must be {shape}, got {item!r}")
            lines.append(line)
        array = (ctypes.c_char_p * (len(lines) + 1))(*lines, None)
        keep.append(array)
        return array
    return convert


# Every settable field of lazyimg_config and how its value is checked; the
# struct's on_event, user_data and session are the binding's own.
FIELDS: dict[str, Convert] = {
    "delivery": _member(Delivery),
    "target_width": _unsigned(32),
    "target_height": _unsigned(32),
    "memory_cache_bytes": _unsigned(64),
    "max_concurrent_downloads": _unsigned(32, 64),
    "prefetch_rows": _integer(-1, (1 << 31) - 1),
    "timeout_ms": _unsigned(32),
    "max_response_bytes": _unsigned(64),
    "max_pixels": _unsigned(64),
    "user_agent": _text,
    "http_headers": _lines(_HEADER, "'Name: value' with an HTTP token as its name, not Host", b"host"),
    "retry_after_ms": _unsigned(32),
    "fit": _member(Fit),
    "pixel_format": _member(PixelFormat),
    "output": _member(Output),
    "slow_scroll_rows_per_second": _rate,
    "prefetch_waste_bytes": _unsigned(64),
    "max_host_connections": _unsigned(32, 64),
    "allow_file_urls": _flag,
    "http_headers_origins": _lines(_ORIGIN, "an origin, 'scheme://host[:port]'"),
    "proxy": _text,
    "ca_file": _readable_file,
    "decode_queue_bytes": _unsigned(64),
    "disk_cache_dir": _path,
    "disk_cache_bytes": _unsigned(64),
    "disk_cache_serve_stale": _flag,
    "max_decode_bytes": _unsigned(64),
    "animation_buffer_bytes": _unsigned(64),
    "fetch_first_pass_only": _flag,
    "preview_interval_ms": _unsigned(32),
}


def config(values: Mapping[str, Any], defaults: Mapping[str, Any]) -> tuple[ConfigStruct, list[object]]:
    """A ConfigStruct with `values` (checked) set where they differ from
    `defaults`, and the objects it points to (keep them alive until the
    create call has copied them)."""
    room = ctypes.create_string_buffer(_CONFIG_ROOM)
    lib.lazyimg_config_init(ctypes.cast(room, ctypes.POINTER(ConfigStruct)))
    cfg = ConfigStruct.from_buffer_copy(room, 0)
    cfg.struct_size = ctypes.sizeof(ConfigStruct)
    keep: list[object] = []
    for name, value in values.items():
        default = defaults[name]
        if value is None and default is None:
            continue  # NULL: lazyimg_config_init's
        converted = FIELDS[name](name, value, keep)
        if value != default:
            setattr(cfg, name, converted)
    return cfg, keep


# Signals the library's threads must not take: all but those a fault raises
# in the thread that caused it.
_HOST_SIGNALS = signal.valid_signals() - {signal.SIGSEGV, signal.SIGBUS, signal.SIGFPE, signal.SIGILL,
                                          signal.SIGTRAP, signal.SIGKILL, signal.SIGSTOP}


def create(function: Any, cfg: ConfigStruct, what: str) -> int:
    """The handle (an int) that lazyimg_loader_create or
    lazyimg_session_create makes from `cfg`; a negative status raises its
    LazyImgError, saying that `what` refused the config.

    The library starts its threads in these calls, and a thread starts with
    its creator's signal mask: with the signals blocked here, a Ctrl-C goes to
    one of Python's threads, where it interrupts a wait(), instead of a
    library thread that would let it sit until the wait ends."""
    handle = ctypes.c_void_p()
    unblocked = signal.pthread_sigmask(signal.SIG_BLOCK, _HOST_SIGNALS)
    try:
        status = function(ctypes.byref(cfg), ctypes.byref(handle))
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, unblocked)
    if status < 0:
        # lazyimg_create_error: this thread's reason, when the library has one
        # (a ca_file that is a FIFO, holds no certificate, ...).
        reason = (lib.lazyimg_create_error() or b"").decode("utf-8", "replace")
        check(status, f"{what} refused the configuration" + (f": {reason}" if reason else ""))
    return int(handle.value or 0)
