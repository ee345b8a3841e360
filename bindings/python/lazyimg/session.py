"""Session: one lazyimg_session, what several loaders share."""
from __future__ import annotations

import os
import warnings
from typing import Any, NoReturn

from . import _fork
from ._config import config, create
from ._library import lib
from .errors import ClosedError


class Session:
    """What several loaders share: one network thread and its connections,
    one table of downloads (a URL is downloaded once however many loaders
    want it, each decoding it into its own box), one disk cache and one
    memory budget for the loaders made with Loader(session=...). Use it as a
    context manager (or call close()).

    disk_cache_dir: a directory (str, bytes or a path) for the disk cache,
    kept across runs; None = no disk cache. disk_cache_bytes: its limit as
    `du` counts it. max_concurrent_downloads: for all its loaders together
    (at most 64). memory_cache_bytes: the decoded images of all its loaders
    together (0 = no shared limit). A bad value raises TypeError or
    ValueError naming it; an unusable directory raises FileError.

    close() drops this object's reference only (lazyimg_session_destroy):
    each loader took its own at creation and keeps the session working until
    it is closed, so closing the session right after making its loaders is
    fine. A Loader also holds this object until it is closed (Loader.session).
    A loader cannot be made with a closed session (ClosedError)."""

    def __init__(self, *, disk_cache_dir: str | bytes | os.PathLike[str] | os.PathLike[bytes] | None = None,
                 disk_cache_bytes: int = 256 << 20, max_concurrent_downloads: int = 16,
                 memory_cache_bytes: int = 64 << 20) -> None:
        self._handle = 0  # what __del__ sees if create raises
        self._forked = False
        values = {"disk_cache_dir": disk_cache_dir, "disk_cache_bytes": disk_cache_bytes,
                  "max_concurrent_downloads": max_concurrent_downloads, "memory_cache_bytes": memory_cache_bytes}
        cfg, keep = config(values, _DEFAULTS)
        self._handle = create(lib.lazyimg_session_create, cfg, "lazyimg_session_create")
        del keep  # copied by the library
        _fork.track(self)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """lazyimg_session_destroy for this object's reference. Closing
        twice is harmless."""
        handle, self._handle = self._handle, 0
        if handle:
            lib.lazyimg_session_destroy(handle)

    @property
    def closed(self) -> bool:
        """True once close() ran (or in a child process that inherited it)."""
        return not self._handle

    def __del__(self) -> None:
        if getattr(self, "_handle", 0):
            warnings.warn("lazyimg.Session was not closed", ResourceWarning, stacklevel=2)
            self.close()

    def _inherited(self) -> None:
        self._handle, self._forked = 0, True

    def _h(self) -> int:
        """The lazyimg_session * for a new loader's config."""
        if not self._handle:
            raise ClosedError("session", forked=self._forked)
        return self._handle

    def __reduce_ex__(self, protocol: Any) -> NoReturn:
        """Refused: a session is this process's threads and connections."""
        raise TypeError("a lazyimg.Session cannot be copied or pickled: make one in each process")

    def __repr__(self) -> str:
        return f"<lazyimg.Session{' closed' if self.closed else ''}>"


# The parameters' defaults: values equal to them keep lazyimg_config_init's.
_DEFAULTS: dict[str, Any] = dict(Session.__init__.__kwdefaults__ or {})
