"""Finds liblazyimg and declares every function of lazyimg.h on it.

Each function has its argtypes and restype here, one line each, so ctypes
converts and checks arguments instead of guessing (a guessed pointer return
is truncated to a C int). tests/test_header_match.py compares this table with
the header's declarations.
"""
import ctypes
import ctypes.util
import os

from ._structs import CONFIG_P, STATS_P

_loader = ctypes.c_void_p   # lazyimg_loader *
_image = ctypes.c_void_p    # lazyimg_image *
_status = ctypes.c_int      # lazyimg_status (enums are int-sized)
_size = ctypes.c_size_t
_out_image = ctypes.POINTER(ctypes.c_void_p)
_out_size = ctypes.POINTER(ctypes.c_size_t)
_urls = ctypes.POINTER(ctypes.c_char_p)

# name: (restype, argtypes), in the header's order.
PROTOTYPES = {
    "lazyimg_version_string": (ctypes.c_char_p, []),
    "lazyimg_version_number": (ctypes.c_uint32, []),
    "lazyimg_strerror": (ctypes.c_char_p, [_status]),
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
    "lazyimg_image_encoded_data": (ctypes.c_void_p, [_image, _out_size]),
    "lazyimg_image_codec": (ctypes.c_int, [_image]),
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


def _open():
    """LAZYIMG_LIBRARY if set, else the dynamic loader's normal search
    (LD_LIBRARY_PATH, the ldconfig cache, the default directories)."""
    path = os.environ.get("LAZYIMG_LIBRARY")
    if path:
        return ctypes.CDLL(path)
    try:
        return ctypes.CDLL("liblazyimg.so.0")
    except OSError:
        pass
    found = ctypes.util.find_library("lazyimg")
    if found:
        return ctypes.CDLL(found)
    raise ImportError(
        "liblazyimg.so.0 not found: install lazyimg (make install PREFIX=...; "
        "add PREFIX/lib to LD_LIBRARY_PATH or run ldconfig), "
        "or set LAZYIMG_LIBRARY to the library's path")


def _declare(lib):
    for name, (restype, argtypes) in PROTOTYPES.items():
        try:
            function = getattr(lib, name)
        except AttributeError:
            raise ImportError(f"{lib._name} does not export {name}: the library is older "
                              f"than this binding") from None
        function.restype = restype
        function.argtypes = argtypes
    return lib


# A CDLL, not a PyDLL: every call releases the GIL, so lazyimg_wait and
# lazyimg_loader_destroy can wait for a callback running on another thread
# (which takes the GIL) without deadlocking.
lib = _declare(_open())
