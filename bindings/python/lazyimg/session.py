"""Session: one lazyimg_session, what several loaders share."""
import warnings

from ._config import _create
from ._library import lib
from .errors import ClosedError

# The lazyimg_config fields lazyimg_session_create reads (it ignores the rest:
# here they are a TypeError, so a loader option is not silently lost).
SESSION_FIELDS = frozenset(("disk_cache_dir", "disk_cache_bytes", "max_concurrent_downloads", "memory_cache_bytes"))


class Session:
    """A lazyimg session: one network thread and its connections, one table
    of downloads (a URL is downloaded once however many loaders want it, each
    decoding it into its own box), one disk cache and one memory budget for
    the loaders made with Loader(session=...). Use it as a context manager
    (or call close()).

    Options, named as in lazyimg_config: disk_cache_dir (str, bytes or a
    path; None = no disk cache), disk_cache_bytes, max_concurrent_downloads
    (for all its loaders together) and memory_cache_bytes (the decoded images
    of all its loaders together; 0 = no shared limit). Any other name raises
    TypeError; a bad value or an unusable directory raises LazyImgError.

    close() drops this object's reference only (lazyimg_session_destroy):
    each loader took its own at creation and keeps the session working until
    it is closed, so closing the session right after making its loaders is
    fine. A Loader also holds this object until it is closed (Loader.session).
    A loader cannot be made with a closed session (ClosedError, E_MISUSE)."""

    def __init__(self, **options):
        self._handle = None  # what __del__ sees if create raises
        self._handle = _create(lib.lazyimg_session_create, options, SESSION_FIELDS, "Session option")

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def close(self):
        """lazyimg_session_destroy for this object's reference. Closing
        twice is harmless."""
        handle, self._handle = self._handle, None
        if handle is not None:
            lib.lazyimg_session_destroy(handle)

    @property
    def closed(self):
        return self._handle is None

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle is None:
            return
        warnings.warn("lazyimg.Session was not closed", ResourceWarning, stacklevel=2)
        self.close()

    def _h(self):
        """The lazyimg_session * for a new loader's config."""
        if self._handle is None:
            raise ClosedError("session")
        return self._handle

    def __repr__(self):
        return f"<lazyimg.Session{' closed' if self.closed else ''}>"
