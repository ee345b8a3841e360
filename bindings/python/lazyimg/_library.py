"""Finds liblazyimg, checks its version and declares every function of
lazyimg.h on it.

Where the library comes from, first found first: the copy inside this
package (a wheel carries one), the path in LAZYIMG_LIBRARY, the dynamic
loader's search for liblazyimg.so.0 (LD_LIBRARY_PATH, the ldconfig cache, the
default directories). Every way this can fail is an ImportError that says
what to do.

Each function has its argtypes and restype here, one line each, so ctypes
converts and checks arguments instead of guessing (a guessed pointer return
is truncated to a C int). tests/test_header_match.py compares this table with
the header's declarations.
"""
from __future__ import annotations

import ctypes
import os
import re

from ._structs import CONFIG_P, STATS_P
from ._version import __version__

_loader = ctypes.c_void_p   # lazyimg_loader *
_image = ctypes.c_void_p    # lazyimg_image *
_status = ctypes.c_int      # lazyimg_status (enums are int-sized)
_size = ctypes.c_size_t
_out_image = ctypes.POINTER(ctypes.c_void_p)
_out_size = ctypes.POINTER(ctypes.c_size_t)
_urls = ctypes.POINTER(ctypes.c_char_p)

# name: (restype, argtypes), in the header's order.
PROTOTYPES: dict[str, tuple[object, list[object]]] = {
    "lazyimg_version_string": (ctypes.c_char_p, []),
    "lazyimg_version_number": (ctypes.c_uint32, []),
    "lazyimg_strerror": (ctypes.c_char_p, [_status]),
    "lazyimg_create_error": (ctypes.c_char_p, []),
    "lazyimg_config_init": (None, [CONFIG_P]),
    "lazyimg_loader_create": (_status, [CONFIG_P, ctypes.POINTER(_loader)]),
    "lazyimg_loader_destroy": (_status, [_loader]),
    "lazyimg_set_items": (_status, [_loader, _urls, _size]),
    "lazyimg_append_items": (_status, [_loader, _urls, _size]),
    "lazyimg_item_count": (_size, [_loader]),
    "lazyimg_set_visible_range": (_status, [_loader, _size, _size]),
    "lazyimg_set_scroll_state": (_status, [_loader, ctypes.c_int, ctypes.c_double]),
    "lazyimg_set_scroll_target": (_status, [_loader, _size, _size]),
    "lazyimg_request": (_status, [_loader, _size, _out_image, ctypes.POINTER(ctypes.c_uint64)]),
    "lazyimg_lookup": (_status, [_loader, _size, _out_image]),
    "lazyimg_lookup_url": (_status, [_loader, ctypes.c_char_p, _out_image]),
    "lazyimg_cancel": (_status, [_loader, ctypes.c_uint64]),
    "lazyimg_set_placeholders": (_status, [_loader, _size, ctypes.c_int, _urls, _size, _out_size,
                                           ctypes.POINTER(ctypes.c_char_p)]),
    "lazyimg_lookup_placeholder": (_status, [_loader, _size, _out_image]),
    "lazyimg_set_paging": (_status, [_loader, _size, ctypes.c_int]),
    "lazyimg_fetch": (_status, [_loader, ctypes.c_char_p, ctypes.POINTER(ctypes.c_uint64)]),
    "lazyimg_image_retain": (_image, [_image]),
    "lazyimg_image_release": (None, [_image]),
    "lazyimg_image_width": (ctypes.c_uint32, [_image]),
    "lazyimg_image_height": (ctypes.c_uint32, [_image]),
    "lazyimg_image_stride": (_size, [_image]),
    "lazyimg_image_pixels": (ctypes.c_void_p, [_image]),
    "lazyimg_image_pixel_format": (ctypes.c_int, [_image]),
    "lazyimg_image_source_width": (ctypes.c_uint32, [_image]),
    "lazyimg_image_source_height": (ctypes.c_uint32, [_image]),
    "lazyimg_image_is_animated": (ctypes.c_int, [_image]),
    "lazyimg_image_is_damaged": (ctypes.c_int, [_image]),
    "lazyimg_image_encoded_data": (ctypes.c_void_p, [_image, _out_size]),
    "lazyimg_image_codec": (ctypes.c_int, [_image]),
    "lazyimg_image_is_placeholder": (ctypes.c_int, [_image]),
    "lazyimg_image_frame_count": (ctypes.c_uint32, [_image]),
    "lazyimg_image_frame_duration": (ctypes.c_uint32, [_image, ctypes.c_uint32]),
    "lazyimg_image_loop_count": (ctypes.c_uint32, [_image]),
    "lazyimg_frame_at": (_status, [_loader, _size, ctypes.c_uint64, _out_image, ctypes.POINTER(ctypes.c_uint32),
                                   ctypes.POINTER(ctypes.c_uint64)]),
    "lazyimg_frame": (_status, [_loader, _size, ctypes.c_uint32, _out_image]),
    "lazyimg_event_fd": (ctypes.c_int, [_loader]),
    "lazyimg_dispatch": (_size, [_loader, _size]),
    "lazyimg_wait": (_status, [_loader, ctypes.c_int]),
    "lazyimg_get_stats": (_status, [_loader, STATS_P]),
    "lazyimg_trim_memory": (None, [_loader, ctypes.c_int]),
    "lazyimg_disk_cache_clear": (_status, [_loader]),
    "lazyimg_disk_cache_remove_url": (_status, [_loader, ctypes.c_char_p]),
    "lazyimg_session_create": (_status, [CONFIG_P, ctypes.POINTER(ctypes.c_void_p)]),
    "lazyimg_session_destroy": (None, [ctypes.c_void_p]),
}

# A wheel's own copy (make wheel puts it there; auditwheel points its RUNPATH
# at the vendored libcurl, TurboJPEG, ... beside it).
BUNDLED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "liblazyimg.so.0")
SONAME = "liblazyimg.so.0"
_DEPENDENCIES = "libcurl4 libturbojpeg0 libspng0 libwebp7 libgif7 (Debian 12's names)"
_WHEEL = "the self-contained wheel (`make wheel`, then pip install build/wheel/lazyimg-*.whl), which needs nothing else"


def _load(path: str, where: str) -> ctypes.CDLL:
    """CDLL(path), or an ImportError saying why it could not be loaded and
    what to do. `where` says how the path was chosen."""
    try:
        # A CDLL, not a PyDLL: every call releases the GIL, so lazyimg_wait and
        # lazyimg_loader_destroy can wait for a callback running on another
        # thread (which takes the GIL) without deadlocking.
        return ctypes.CDLL(path)
    except OSError as error:
        reason = str(error)
    missing = re.match(r"(lib[^:/]+\.so[.0-9]*): cannot open shared object file", reason)
    if missing and missing.group(1) != SONAME and missing.group(1) != os.path.basename(path):
        advice = ("reinstall this lazyimg package: the libraries it carries in lazyimg.libs are incomplete"
                  if path == BUNDLED else f"install the libraries it links, {_DEPENDENCIES}, or install {_WHEEL}")
        raise ImportError(f"liblazyimg ({where}: {path}) needs {missing.group(1)}, which is not installed: "
                          f"{advice} ({reason})", path=path) from None
    if where == "the dynamic loader's search":
        raise ImportError(f"{SONAME} not found: install {_WHEEL}; or install the library (make install "
                          f"PREFIX=...; add PREFIX/lib to LD_LIBRARY_PATH or run ldconfig); or set "
                          f"LAZYIMG_LIBRARY to its path ({reason})", name=SONAME) from None
    if where == "LAZYIMG_LIBRARY":
        advice = ("point LAZYIMG_LIBRARY at a liblazyimg.so.0 (`make build` makes one under .build/), "
                  "or unset it to use the installed library")
    else:
        advice = "reinstall this lazyimg package: its copy of the library is damaged"
    raise ImportError(f"cannot load liblazyimg ({where}: {path}): {reason}; {advice}", path=path) from None


def _open() -> tuple[ctypes.CDLL, str]:
    """The library and how it was chosen."""
    if os.path.exists(BUNDLED):
        return _load(BUNDLED, "the copy inside the lazyimg package"), "the copy inside the lazyimg package"
    path = os.environ.get("LAZYIMG_LIBRARY")
    if path:
        return _load(path, "LAZYIMG_LIBRARY"), "LAZYIMG_LIBRARY"
    return _load(SONAME, "the dynamic loader's search"), "the dynamic loader's search"


def _declare(library: ctypes.CDLL, where: str) -> ctypes.CDLL:
    for name, (restype, argtypes) in PROTOTYPES.items():
        try:
            function = getattr(library, name)
        except AttributeError:
            raise ImportError(f"liblazyimg ({where}: {library._name}) does not export {name}: the library "
                              f"is older than this binding ({__version__}); install liblazyimg "
                              f"{__version__} or newer, or {_WHEEL}", path=library._name) from None
        function.restype = restype
        function.argtypes = argtypes
    return library


def _check_version(library: ctypes.CDLL, where: str) -> None:
    """The library must be this binding's version or a later one of the same
    major version: its structs only grow (struct_size), so a newer library
    reads what this binding writes; an older one lacks what it may use."""
    major, minor, patch = (int(part) for part in __version__.split("."))
    number = int(library.lazyimg_version_number())
    version = library.lazyimg_version_string().decode("ascii", "replace")
    if number // 1000000 != major or number < major * 1000000 + minor * 1000 + patch:
        raise ImportError(f"liblazyimg {version} ({where}: {library._name}) does not match this binding "
                          f"({__version__}): install liblazyimg {major}.x, at least {__version__}, "
                          f"or {_WHEEL}", path=library._name)


def _path_of(library: ctypes.CDLL) -> str:
    """The file the dynamic loader mapped for `library` (dladdr of one of its
    functions), whichever way it was found."""

    class DlInfo(ctypes.Structure):
        _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                    ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]

    libc = ctypes.CDLL(None)
    libc.dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(DlInfo)]
    info = DlInfo()
    address = ctypes.cast(library.lazyimg_version_number, ctypes.c_void_p).value
    if libc.dladdr(address, ctypes.byref(info)) and info.dli_fname:
        return os.path.realpath(os.fsdecode(info.dli_fname))
    return str(library._name)


def function_addresses(library: ctypes.CDLL) -> dict[str, int]:
    """Each declared function's address, for lazyimg._speedups."""
    return {name: int(ctypes.cast(getattr(library, name), ctypes.c_void_p).value or 0) for name in PROTOTYPES}


lib, found_by = _open()
_declare(lib, found_by)
_check_version(lib, found_by)
path = _path_of(lib)
