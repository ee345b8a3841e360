"""lazyimg for Python: a lazy image loader for long scrolling lists.

Loader is one lazyimg_loader (include/lazyimg.h is the reference: its
methods are the header's functions without the lazyimg_ prefix; frame_at
and frame play animations); Session is
what several loaders share; AsyncLoader (lazyimg.aio) drives a loader from
asyncio; load(urls) fetches a contact sheet in one call. bindings/python/
README.md is the user guide.

The library is the copy inside this package (a wheel's), else the one
LAZYIMG_LIBRARY names, else the system's liblazyimg.so.0; `library_path`
says which file was loaded. The calls a list makes every frame run in a
small C extension when it was built (`speedups`), else through ctypes.
"""
from ._version import __version__
from . import _library
from ._core import FrameResult, RequestResult, speedups
from .constants import (TRIM_COMPLETE, TRIM_MODERATE, Codec, Delivery, EventType, Fit, Output, PixelFormat,
                        PlaceholderKind, ScrollState, Source, Status)
from .errors import (BadURLError, CancelledError, ClosedError, DecodeError, FileError, HTTPError,
                     InvalidArgumentError, LazyImgError, MisuseError, NetworkError, NoImageError,
                     OutOfMemoryError, OutOfRangeError, ProtocolError, BadPlaceholderError, ShutdownError,
                     TLSError, TooLargeError, UnsupportedFormatError, strerror)
from .event import Event
from .image import Image
from .loader import Loader, load
from .session import Session
from .stats import Stats

library_path: str = _library.path
"""The liblazyimg file this process loaded."""

__all__ = ["__version__", "Loader", "Session", "Image", "Event", "RequestResult", "FrameResult", "Stats", "load",
           "LazyImgError", "InvalidArgumentError", "OutOfRangeError", "BadURLError", "NetworkError", "TLSError",
           "HTTPError", "DecodeError", "UnsupportedFormatError", "TooLargeError", "FileError", "CancelledError",
           "OutOfMemoryError", "MisuseError", "ShutdownError", "NoImageError", "ClosedError",
           "ProtocolError", "BadPlaceholderError",
           "Status", "ScrollState", "Delivery", "Fit", "PixelFormat", "Output", "Codec", "EventType", "Source",
           "PlaceholderKind",
           "TRIM_MODERATE", "TRIM_COMPLETE", "version", "version_number", "strerror", "library_path", "speedups"]


def version() -> str:
    """lazyimg_version_string() of the loaded library (__version__ is the
    binding's; the library is that version or a later one)."""
    return bytes(_library.lib.lazyimg_version_string()).decode()


def version_number() -> int:
    """lazyimg_version_number() of the loaded library: major * 1000000 +
    minor * 1000 + patch."""
    return int(_library.lib.lazyimg_version_number())
