"""lazyimg_config from keyword options: what Loader and Session are made from.

Options are named as the struct's fields; lazyimg_config_init supplies the
library's defaults for the rest.
"""
import ctypes
import enum
import os

from ._library import lib
from ._structs import ConfigStruct
from .errors import check

# lazyimg_config_init writes the library's sizeof(lazyimg_config), which is
# larger than ours when the library is newer: give it room, then tell it our
# size (it reads min(struct_size, its own) and defaults the rest).
_CONFIG_ROOM = max(ctypes.sizeof(ConfigStruct), 4096)
# What a Loader may set: every field but those the binding fills itself.
LOADER_FIELDS = frozenset(name for name, _ in ConfigStruct._fields_) - {"struct_size", "on_event", "user_data"}


def _config(options, settable=LOADER_FIELDS, what="lazyimg_config field"):
    """A ConfigStruct with `options` set, and the objects it points to (keep
    them alive until the create call has copied them). A name outside
    `settable` is a TypeError naming `what` and the names allowed."""
    room = ctypes.create_string_buffer(_CONFIG_ROOM)
    lib.lazyimg_config_init(ctypes.cast(room, ctypes.POINTER(ConfigStruct)))
    cfg = ConfigStruct.from_buffer_copy(room, 0)
    cfg.struct_size = ctypes.sizeof(ConfigStruct)
    keep = []
    for name, value in options.items():
        if name not in settable:
            raise TypeError(f"unknown {what} {name!r}; known: {', '.join(sorted(settable))}")
        if value is None:
            pass
        elif name in _TEXT_FIELDS:
            value = _TEXT_FIELDS[name](value)
        elif name in _TEXT_LIST_FIELDS:
            if isinstance(value, (str, bytes)):
                raise TypeError(f"{name} is a list of strings, not one string")
            lines = [_bytes(line) for line in value] + [None]
            value = (ctypes.c_char_p * len(lines))(*lines)
            keep.append(value)
        elif isinstance(value, enum.Enum):
            value = int(value)
        setattr(cfg, name, value)
    return cfg, keep


def _create(create_function, options, settable=LOADER_FIELDS, what="lazyimg_config field"):
    """The handle (an int) that lazyimg_loader_create or lazyimg_session_create
    makes from `options`. Negative statuses raise LazyImgError."""
    cfg, keep = _config(options, settable, what)
    handle = ctypes.c_void_p()
    check(create_function(ctypes.byref(cfg), ctypes.byref(handle)))
    del keep  # copied by the library
    return handle.value


def _bytes(text):
    """URLs and header lines cross as bytes, matched byte for byte: str is
    encoded as UTF-8, bytes pass untouched."""
    return text if isinstance(text, bytes) else str(text).encode("utf-8")


# const char * fields of lazyimg_config and how a value becomes their bytes (a
# CA file or cache directory is a path: str, bytes or os.PathLike, in the file
# system's encoding).
_TEXT_FIELDS = {"user_agent": _bytes, "proxy": _bytes, "ca_file": os.fsencode, "disk_cache_dir": os.fsencode}
# Its NULL-terminated const char *const * fields, given as lists of str or bytes.
_TEXT_LIST_FIELDS = ("http_headers", "http_headers_origins")
