"""Loader: one lazyimg_loader, its methods mirroring the C API."""
import ctypes
import operator
import threading
import warnings
import weakref

from ._config import LOADER_FIELDS, _bytes, _create
from ._library import lib
from ._structs import EVENT_FN, StatsStruct
from .constants import Delivery, Status
from .errors import ClosedError, check
from .event import Event
from .image import Image
from .session import Session

# Loaders whose destroy was refused (collected inside one of their own
# callbacks): kept for ever, because the library still calls their trampoline.
_unreclaimable = []


class RequestResult:
    """What lazyimg_request answered: OK with `image`, or PENDING/DEFERRED
    with the `ticket` whose event follows."""

    __slots__ = ("status", "image", "ticket")

    def __init__(self, status, image, ticket):
        self.status, self.image, self.ticket = status, image, ticket

    def __repr__(self):
        return f"<lazyimg.RequestResult {self.status.name} image={self.image!r} ticket={self.ticket}>"


def _deliver(loader_ref, _user_data, c_event):
    """The C callback: copies the event out and hands it on. Never lets an
    exception into ctypes (which would print and drop it): it is kept and
    re-raised from dispatch, wait or close."""
    loader = loader_ref()
    if loader is None:
        return
    try:
        event = Event(c_event.contents)
        if loader._collect:
            loader._ran.append(event)
        if loader._on_event is not None:
            loader._on_event(event)
    except BaseException as exc:  # noqa: B036 (KeyboardInterrupt too: re-raised later)
        with loader._errors_lock:
            loader._errors.append(exc)


class Loader:
    """A lazyimg loader. Use it as a context manager (or call close()).

    Config fields are keyword arguments named as in lazyimg_config
    (target_width=64, delivery=Delivery.THREAD, http_headers=["A: b"], ...);
    an unknown name raises TypeError; string lists (http_headers,
    http_headers_origins) are lists of str or bytes. Without on_event, events
    are collected and dispatch() returns them as Event objects: IMAGE or
    FAILED for request() tickets, DATA or FAILED for fetch() tickets,
    NEED_PAGE after set_paging(). With on_event(event) each is also passed to
    it (in THREAD delivery, on the library's delivery thread).
    An exception raised by on_event is re-raised from the next dispatch(),
    wait() or close(). Negative statuses raise LazyImgError; a call on a
    closed loader raises ClosedError (a LazyImgError with E_MISUSE).

    session=Session(...) shares that session's network, downloads, disk cache
    and memory budget (its disk_cache_dir and disk_cache_bytes are then used,
    the loader's ignored). The loader holds the Session until it is closed;
    the library keeps its own reference as long as the loader lives.
    Without a session, disk_cache_dir (a path), disk_cache_bytes and
    disk_cache_serve_stale give the loader a disk cache of its own; events
    answered from it have source Source.DISK."""

    def __init__(self, on_event=None, **options):
        self._on_event = on_event
        self._errors = []
        self._errors_lock = threading.Lock()
        self._ran = []
        self._handle = None
        self._session = options.get("session")
        if self._session is not None:
            if not isinstance(self._session, Session):
                raise TypeError(f"session must be a lazyimg.Session, not {type(self._session).__name__}")
            options["session"] = self._session._h()
        delivery = options.get("delivery", Delivery.HOST)
        # HOST events run inside dispatch() on the caller's thread: return them.
        self._collect = int(delivery) == Delivery.HOST
        # The trampoline holds the loader weakly (no cycle, so an unclosed
        # loader is destroyed as soon as it is dropped) and lives as long as
        # the loader: the library calls it until destroy returns.
        ref = weakref.ref(self)
        self._trampoline = EVENT_FN(lambda user_data, c_event: _deliver(ref, user_data, c_event))
        self._handle = _create(lib.lazyimg_loader_create, {**options, "on_event": self._trampoline},
                               LOADER_FIELDS | {"on_event"})

    # ---------------------------------------------------------- lifetime

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def close(self):
        """lazyimg_loader_destroy: cancels all work; outstanding tickets get
        their events (CANCELLED) before it returns, through on_event. Raises
        LazyImgError(E_MISUSE) when called from inside a callback (the loader
        is then left open). Closing twice is harmless."""
        handle = self._handle
        if handle is None:
            return
        check(lib.lazyimg_loader_destroy(handle))
        self._handle = None
        self._session = None
        self._ran.clear()
        self._raise_callback_errors()

    destroy = close

    @property
    def closed(self):
        return self._handle is None

    @property
    def session(self):
        """The Session this loader was made with (None without one, and once
        the loader is closed)."""
        return self._session

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle is None:
            return
        warnings.warn("lazyimg.Loader was not closed", ResourceWarning, stacklevel=2)
        if lib.lazyimg_loader_destroy(handle) == Status.E_MISUSE:
            _unreclaimable.append(self._trampoline)

    def _h(self):
        if self._handle is None:
            raise ClosedError("loader")
        return self._handle

    # -------------------------------------------------------------- list

    def set_items(self, urls):
        """lazyimg_set_items: row i shows urls[i] (str, bytes or None)."""
        array, count = _url_array(urls)
        check(lib.lazyimg_set_items(self._h(), array, count))

    def append_items(self, urls):
        """lazyimg_append_items: the next page."""
        array, count = _url_array(urls)
        check(lib.lazyimg_append_items(self._h(), array, count))

    def item_count(self):
        return lib.lazyimg_item_count(self._h())

    __len__ = item_count

    # -------------------------------------------------------- view state

    def set_visible_range(self, first, count):
        check(lib.lazyimg_set_visible_range(self._h(), _rows(first, "first"), _rows(count, "count")))

    def set_scroll_state(self, state, velocity_rows_per_second=0.0):
        check(lib.lazyimg_set_scroll_state(self._h(), int(state), float(velocity_rows_per_second)))

    def set_scroll_target(self, first, count):
        """lazyimg_set_scroll_target: rows first .. first+count-1 will be on
        screen when the list rests (the toolkit's prediction); they start
        loading even while the list flies. count 0 withdraws the target."""
        check(lib.lazyimg_set_scroll_target(self._h(), _rows(first, "first"), _rows(count, "count")))

    # ------------------------------------------------ paged lists and feeds

    def set_paging(self, distance_rows, has_more):
        """lazyimg_set_paging: one NEED_PAGE event (row = the row count) when
        the visible range comes within distance_rows of the end while
        has_more; append_items (or another set_paging call) re-arms it."""
        check(lib.lazyimg_set_paging(self._h(), _rows(distance_rows, "distance_rows"), 1 if has_more else 0))

    def fetch(self, url):
        """lazyimg_fetch: downloads url (a feed page, any data) through the
        loader's network stack and returns its ticket. One event follows:
        DATA with the body as Event.data (bytes), or FAILED. cancel() works
        on the ticket."""
        ticket = ctypes.c_uint64()
        check(lib.lazyimg_fetch(self._h(), _url(url), ctypes.byref(ticket)))
        return ticket.value

    # -------------------------------------------------------------- rows

    def request(self, row):
        """lazyimg_request: a RequestResult (OK with an Image, or PENDING /
        DEFERRED with a ticket whose one event follows)."""
        image = ctypes.c_void_p()
        ticket = ctypes.c_uint64()
        status = check(lib.lazyimg_request(self._h(), row, ctypes.byref(image), ctypes.byref(ticket)))
        return RequestResult(status, Image(image.value) if image.value else None, ticket.value)

    def lookup(self, row):
        """lazyimg_lookup: the Image in memory for the row, or None."""
        image = ctypes.c_void_p()
        check(lib.lazyimg_lookup(self._h(), row, ctypes.byref(image)))
        return Image(image.value) if image.value else None

    def lookup_url(self, url):
        image = ctypes.c_void_p()
        check(lib.lazyimg_lookup_url(self._h(), _url(url), ctypes.byref(image)))
        return Image(image.value) if image.value else None

    def cancel(self, ticket):
        """lazyimg_cancel: True if the ticket was live (its CANCELLED event
        follows), False if unknown or finished."""
        return check(lib.lazyimg_cancel(self._h(), ticket)) == Status.OK

    # ------------------------------------------------------------ events

    @property
    def fd(self):
        """lazyimg_event_fd: readable (level-triggered) while events wait;
        for select, selectors or loop.add_reader. -1 in THREAD delivery."""
        return lib.lazyimg_event_fd(self._h())

    event_fd = fd

    def dispatch(self, max=0):  # noqa: A002 (the C parameter's name)
        """lazyimg_dispatch: runs up to `max` waiting events (0 = all) on
        this thread and returns them as a list of Event. Re-raises the first
        exception a callback raised (later ones are attached as notes)."""
        lib.lazyimg_dispatch(self._h(), max)
        events, self._ran = self._ran, []
        self._raise_callback_errors()
        return events

    def wait(self, timeout_ms=-1):
        """lazyimg_wait: True when events wait, False on timeout. Releases
        the GIL while it blocks."""
        status = check(lib.lazyimg_wait(self._h(), int(timeout_ms)))
        self._raise_callback_errors()
        return status == Status.OK

    def _raise_callback_errors(self):
        with self._errors_lock:
            errors, self._errors = self._errors, []
        if errors:
            first = errors[0]
            for later in errors[1:]:
                if hasattr(first, "add_note"):  # Python 3.11+
                    first.add_note(f"also raised in a lazyimg callback: {later!r}")
            raise first

    # ------------------------------------------------------ stats, memory

    def get_stats(self):
        """lazyimg_get_stats: a StatsStruct (attributes named as in C)."""
        stats = StatsStruct(struct_size=ctypes.sizeof(StatsStruct))
        check(lib.lazyimg_get_stats(self._h(), ctypes.byref(stats)))
        return stats

    def trim_memory(self, level):
        lib.lazyimg_trim_memory(self._h(), int(level))

    # -------------------------------------------------------- disk cache

    def disk_cache_clear(self):
        """lazyimg_disk_cache_clear: removes every entry of the loader's disk
        cache (its session's, if it has one; other loaders and processes on
        the directory see it empty too). The memory cache is kept. Blocks for
        the file deletions (without the GIL): not for a per-frame path. Does
        nothing without a disk cache."""
        check(lib.lazyimg_disk_cache_clear(self._h()))

    def disk_cache_remove_url(self, url):
        """lazyimg_disk_cache_remove_url: forgets `url` (str or bytes) on disk
        (its original and the thumbnails of every box) and in this loader's
        memory cache, so its next request downloads it. Blocks for the file
        deletions. Does nothing when it was not cached."""
        check(lib.lazyimg_disk_cache_remove_url(self._h(), _url(url)))


def _rows(value, name):
    """A row index or count for a size_t parameter: ctypes would wrap a
    negative int to a huge row without a word."""
    value = operator.index(value)
    if value < 0:
        raise ValueError(f"{name} must not be negative, got {value}")
    return value


def _url(url):
    """A URL argument: None stays NULL, which the library refuses with
    E_INVALID_ARGUMENT (as str, it would become the URL b"None")."""
    return None if url is None else _bytes(url)


def _url_array(urls):
    items = [_url(url) for url in urls]
    return (ctypes.c_char_p * len(items))(*items), len(items)
