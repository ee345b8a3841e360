"""The per-frame calls and the Image handle: lazyimg._speedups (C) when it
was built, else lazyimg._pure (the same in Python, through ctypes).
LAZYIMG_PURE_PYTHON=1 chooses the Python one (tests and benchmarks run both).
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

from . import _library
from .constants import Status
from .errors import error_for

if TYPE_CHECKING or os.environ.get("LAZYIMG_PURE_PYTHON", "0") not in ("", "0"):
    from ._pure import FrameResult, ImageBase, LoaderBase, RequestResult, configure, wrap
    speedups = False
else:
    try:
        from ._speedups import FrameResult, ImageBase, LoaderBase, RequestResult, configure, wrap
        speedups = True
    except ImportError:  # not built (no compiler when installed): the same in Python
        from ._pure import FrameResult, ImageBase, LoaderBase, RequestResult, configure, wrap
        speedups = False

__all__ = ["FrameResult", "ImageBase", "LoaderBase", "RequestResult", "wrap", "speedups", "bind"]


def bind(image_type: type) -> None:
    """Tells the chosen module which library functions to call, which Image
    class to make, and how statuses become results and exceptions."""
    statuses = tuple(sorted((member for member in Status if member >= 0), key=int))
    assert [int(member) for member in statuses] == list(range(len(statuses)))
    configure(_library.function_addresses(_library.lib), image_type, error_for, statuses)
