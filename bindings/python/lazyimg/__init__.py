"""lazyimg for Python: a ctypes binding of liblazyimg (nothing to compile).

The library is found through LAZYIMG_LIBRARY (a path) or the dynamic loader's
normal search for liblazyimg.so.0 (an installed prefix on LD_LIBRARY_PATH or
in the ldconfig cache). include/lazyimg.h is the reference documentation:
Loader's methods are its functions, without the lazyimg_ prefix; Session is
lazyimg_session (several loaders sharing downloads, a disk cache and memory).
"""
from ._library import lib
from .constants import (TRIM_COMPLETE, TRIM_MODERATE, Codec, Delivery, EventType, Fit, Output,
                        PixelFormat, ScrollState, Source, Status)
from .errors import ClosedError, LazyImgError
from .event import Event
from .image import Image
from .loader import Loader, RequestResult
from .session import Session

__all__ = ["Loader", "Session", "Image", "Event", "RequestResult", "LazyImgError", "ClosedError", "Status",
           "ScrollState", "Delivery", "Fit", "PixelFormat", "Output", "Codec", "EventType", "Source",
           "TRIM_MODERATE", "TRIM_COMPLETE", "version", "version_number", "strerror"]


def version():
    """lazyimg_version_string() of the loaded library."""
    return lib.lazyimg_version_string().decode()


def version_number():
    return lib.lazyimg_version_number()


def strerror(status):
    return lib.lazyimg_strerror(int(status)).decode("utf-8", "replace")
