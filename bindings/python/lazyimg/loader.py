"""Loader: one lazyimg_loader, its methods mirroring the C API."""
from __future__ import annotations

import ctypes
import math
import os
import select
import threading
import time
import warnings
import weakref
from typing import Any, Callable, NoReturn, Sequence

from . import _fork
from ._config import FIELDS, config, create, to_bytes
from ._core import LoaderBase, wrap
from ._pure import _rows
from ._library import lib
from ._structs import EVENT_FN, StatsStruct
from .constants import Delivery, EventType, Fit, Output, PixelFormat, PlaceholderKind, Status
from .errors import ClosedError, LazyImgError, MisuseError, check, error_for
from .event import Event
from .image import Image
from .session import Session
from .stats import Stats

# Loaders whose destroy was refused (collected inside one of their own
# callbacks): kept for ever, because the library still calls their trampoline.
_unreclaimable: list[object] = []

Path = str | bytes | os.PathLike[str] | os.PathLike[bytes]
URL = str | bytes


def _deliver(loader_ref: weakref.ReferenceType[Loader], c_event: Any) -> None:
    """The C callback: copies the event out and hands it on. Never lets an
    exception into ctypes (which would print and drop it): it is kept and
    re-raised from dispatch, wait or close."""
    loader = loader_ref()
    if loader is None:
        return
    try:
        loader._handle_event(Event(c_event.contents))
    except BaseException as exc:  # noqa: B036 (KeyboardInterrupt too: re-raised later)
        with loader._errors_lock:
            loader._errors.append(exc)


class Loader(LoaderBase):
    """A lazyimg loader: a list of URLs, the rows on screen and the scroll
    state in; images at once from memory or through one event per ticket
    out. Use it as a context manager (or call close()).

    Every keyword parameter is the lazyimg_config field of the same name
    (include/lazyimg.h says what each does), with the library's default; a
    bad value is a TypeError or ValueError naming it. Sizes are ints (bytes,
    pixels, milliseconds as the names say); http_headers and
    http_headers_origins are lists of str or bytes; ca_file and
    disk_cache_dir are paths.

    on_event(event), if given, gets every Event: in HOST delivery (the
    default) inside dispatch() on the caller's thread, in THREAD delivery on
    the library's delivery thread. An exception it raises is re-raised from
    the next dispatch(), wait() or close(). In HOST delivery dispatch() also
    returns the events it ran.

    session=Session(...) shares that session's network, downloads, disk cache
    and memory budget (its disk_cache_dir and disk_cache_bytes are then used,
    the loader's ignored); the loader holds the Session until it is closed.
    Without a session, disk_cache_dir, disk_cache_bytes and
    disk_cache_serve_stale give the loader a disk cache of its own.

    animation_buffer_bytes > 0 plays animated GIF and WebP: request() still
    gives the first frame (its Image's frame_count, frame_duration() and
    loop_count describe the animation), and frame_at(row, time_ms), asked
    on every frame for each visible animated cell, gives the frame due, from
    a buffer of at most that many bytes per animation.

    Negative statuses raise LazyImgError subclasses (HTTPError, NetworkError,
    ...); a call on a closed loader, or on one inherited across fork(),
    raises ClosedError. Every call that can wait releases the GIL; the
    per-frame calls (request, lookup, set_visible_range, set_scroll_state,
    frame_at, frame) never block and keep it. As in C, close() must not run while another
    thread is inside a call on the same loader."""

    def __init__(self, on_event: Callable[[Event], object] | None = None, *,
                 delivery: Delivery = Delivery.HOST,
                 target_width: int = 0,
                 target_height: int = 0,
                 memory_cache_bytes: int = 64 << 20,
                 max_concurrent_downloads: int = 16,
                 prefetch_rows: int = -1,
                 timeout_ms: int = 15000,
                 max_response_bytes: int = 32 << 20,
                 max_pixels: int = 50_000_000,
                 user_agent: URL | None = None,
                 http_headers: Sequence[URL] | None = None,
                 retry_after_ms: int = 2000,
                 fit: Fit = Fit.INSIDE,
                 pixel_format: PixelFormat = PixelFormat.RGBA8,
                 output: Output = Output.PIXELS,
                 slow_scroll_rows_per_second: float = 0.0,
                 prefetch_waste_bytes: int = 4 << 20,
                 max_host_connections: int = 10,
                 allow_file_urls: bool = False,
                 http_headers_origins: Sequence[URL] | None = None,
                 proxy: URL | None = None,
                 ca_file: Path | None = None,
                 decode_queue_bytes: int = 64 << 20,
                 disk_cache_dir: Path | None = None,
                 disk_cache_bytes: int = 256 << 20,
                 disk_cache_serve_stale: bool = True,
                 session: Session | None = None,
                 max_decode_bytes: int = 64 << 20,
                 animation_buffer_bytes: int = 0,
                 fetch_first_pass_only: bool = True,
                 preview_interval_ms: int = 0) -> None:
        values = {name: value for name, value in locals().items() if name in FIELDS}
        self._handle = 0
        self._forked = False
        if on_event is not None and not callable(on_event):
            raise TypeError(f"on_event must be callable (it is called with each Event), not "
                            f"{type(on_event).__name__}")
        if session is not None and not isinstance(session, Session):
            raise TypeError(f"session must be a lazyimg.Session, not {type(session).__name__}")
        self._on_event = on_event
        self._errors: list[BaseException] = []
        self._errors_lock = threading.Lock()
        self._ran: list[Event] = []
        self._poller: select.poll | None = None
        cfg, keep = config(values, _DEFAULTS)
        # HOST events run inside dispatch() on the caller's thread: return them.
        self._collect = int(delivery) == Delivery.HOST
        # The trampoline holds the loader weakly (no cycle, so an unclosed
        # loader is destroyed as soon as it is dropped) and lives as long as
        # the loader: the library calls it until destroy returns.
        ref = weakref.ref(self)
        self._trampoline = EVENT_FN(lambda user_data, c_event: _deliver(ref, c_event))
        cfg.on_event = self._trampoline
        if session is not None:
            cfg.session = session._h()
        self._handle = create(lib.lazyimg_loader_create, cfg, "lazyimg_loader_create")
        del keep  # copied by the library
        self._session = session
        _fork.track(self)
        self._attach()

    def _attach(self) -> None:
        """Called once the loader exists (AsyncLoader joins its event loop)."""

    # ---------------------------------------------------------- lifetime

    def __enter__(self) -> Loader:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """lazyimg_loader_destroy: cancels all work; outstanding tickets get
        their events (CANCELLED) before it returns, through on_event. Raises
        MisuseError when called from inside a callback (the loader is then
        left open). Closing twice is harmless."""
        handle = self._handle
        if not handle:
            return
        check(lib.lazyimg_loader_destroy(handle), "close() inside one of the loader's own callbacks")
        self._handle = 0
        self._session = None
        self._ran.clear()
        self._raise_callback_errors()

    destroy = close

    @property
    def closed(self) -> bool:
        """True once close() ran (or in a child process that inherited the
        loader across fork())."""
        return not self._handle

    @property
    def session(self) -> Session | None:
        """The Session this loader was made with (None without one, and once
        the loader is closed)."""
        return self._session

    def __del__(self) -> None:
        handle = getattr(self, "_handle", 0)
        if not handle:
            return
        warnings.warn("lazyimg.Loader was not closed", ResourceWarning, stacklevel=2)
        if lib.lazyimg_loader_destroy(handle) == Status.E_MISUSE:
            _unreclaimable.append(self._trampoline)

    def _inherited(self) -> None:
        """In a child forked from this process: dead, never destroyed."""
        self._handle, self._forked, self._session = 0, True, None

    def _closed_error(self) -> ClosedError:
        return ClosedError("loader", forked=self._forked)

    def _h(self) -> int:
        if not self._handle:
            raise self._closed_error()
        return self._handle

    def __reduce_ex__(self, protocol: Any) -> NoReturn:
        """Refused: a loader is this process's threads and caches."""
        raise TypeError("a lazyimg.Loader cannot be copied or pickled: make one in each process")

    # -------------------------------------------------------------- list

    def set_items(self, urls: Sequence[URL | None]) -> None:
        """lazyimg_set_items: row i shows urls[i] (str, bytes, or None for a
        row without an image). Outstanding tickets of the old list end
        CANCELLED; the memory cache is kept."""
        array, count = _url_array(urls, "urls")
        check(lib.lazyimg_set_items(self._h(), array, count))

    def append_items(self, urls: Sequence[URL | None]) -> None:
        """lazyimg_append_items: the next page, after the current rows."""
        array, count = _url_array(urls, "urls")
        check(lib.lazyimg_append_items(self._h(), array, count))

    def item_count(self) -> int:
        """The number of rows (also len(loader))."""
        return int(lib.lazyimg_item_count(self._h()))

    __len__ = item_count

    # -------------------------------------------------------- view state

    # request, lookup, set_visible_range and set_scroll_state, the calls a
    # list makes every frame, are LoaderBase's: in C (_speedups) or _pure.

    def set_scroll_target(self, first: int, count: int) -> None:
        """lazyimg_set_scroll_target: rows first .. first+count-1 will be on
        screen when the list rests (the toolkit's prediction); they start
        loading even while the list flies. count 0 withdraws the target."""
        check(lib.lazyimg_set_scroll_target(self._h(), _rows(first, "first"), _rows(count, "count")))

    # ------------------------------------------------ paged lists and feeds

    def set_paging(self, distance_rows: int, has_more: bool) -> None:
        """lazyimg_set_paging: one NEED_PAGE event (row = the row count) when
        the visible range comes within distance_rows of the end while
        has_more; append_items (or another set_paging call) re-arms it."""
        check(lib.lazyimg_set_paging(self._h(), _rows(distance_rows, "distance_rows"), 1 if has_more else 0))

    def fetch(self, url: URL) -> int:
        """lazyimg_fetch: downloads url (a feed page, any data) through the
        loader's network stack and returns its ticket. One event follows:
        DATA with the body as Event.data (bytes), or FAILED. cancel() works
        on the ticket. (AsyncLoader.data(url) awaits the body.)"""
        ticket = ctypes.c_uint64()
        check(lib.lazyimg_fetch(self._h(), to_bytes("url", url), ctypes.byref(ticket)))
        return ticket.value

    # ------------------------------------------------------ placeholders

    def set_placeholders(self, first_row: int, hashes: Sequence[str | bytes | None],
                         kind: PlaceholderKind = PlaceholderKind.BLURHASH) -> None:
        """lazyimg_set_placeholders: rows first_row .. first_row+len(hashes)-1
        get their placeholder hashes of one kind (a BlurHash, or a ThumbHash
        as base64 text; None removes a row's). Call it after set_items or
        append_items with the same page (a feed's "blurhash" beside each
        URL). request() then answers a row whose image is not in memory with
        Status.PLACEHOLDER: the drawn placeholder as its image, and the
        ticket whose event brings the real one. Raises OutOfRangeError (a
        row past the list: nothing set) or BadPlaceholderError (row: the
        first hash that does not parse; every other row given is set)."""
        if not isinstance(kind, int) or isinstance(kind, bool):
            raise TypeError(f"kind must be a PlaceholderKind, not {type(kind).__name__}")
        array, count = _url_array(hashes, "hashes", "hashes")
        bad_row = ctypes.c_size_t()
        reason = ctypes.c_char_p()
        status = lib.lazyimg_set_placeholders(self._h(), _rows(first_row, "first_row"), int(kind), array, count,
                                              ctypes.byref(bad_row), ctypes.byref(reason))
        if status == Status.E_BAD_PLACEHOLDER:
            raise error_for(status, (reason.value or b"").decode("utf-8", "replace"), row=bad_row.value)
        check(status)

    def lookup_placeholder(self, row: int) -> Image | None:
        """lazyimg_lookup_placeholder: the row's drawn placeholder
        (Image.is_placeholder is True), whatever its image's state (for a row
        that failed, say), or None when it has none. Never schedules
        anything."""
        image = ctypes.c_void_p()
        check(lib.lazyimg_lookup_placeholder(self._h(), _rows(row, "row"), ctypes.byref(image)))
        return _wrap(image.value)

    # -------------------------------------------------------------- rows

    def lookup_url(self, url: URL) -> Image | None:
        """lazyimg_lookup_url: the Image in memory for `url` (this loader's
        box), or None. Never schedules anything."""
        image = ctypes.c_void_p()
        check(lib.lazyimg_lookup_url(self._h(), to_bytes("url", url), ctypes.byref(image)))
        return _wrap(image.value)

    def cancel(self, ticket: int) -> bool:
        """lazyimg_cancel: True if the ticket was live (its CANCELLED event
        follows), False if unknown or finished."""
        if isinstance(ticket, bool) or not isinstance(ticket, int) or not 0 <= ticket < 1 << 64:
            raise ValueError(f"ticket must be a ticket (an int from request or fetch), got {ticket!r}")
        return check(lib.lazyimg_cancel(self._h(), ticket)) == Status.OK

    def load(self, urls: Sequence[URL | None], *, timeout: float | None = None) -> list[Image | LazyImgError]:
        """Shows `urls` (set_items) and waits until every row has its answer:
        for each row its Image, or the LazyImgError it failed with (a row
        whose URL is None gets NoImageError). For a contact sheet or a
        script; a list on screen uses request() and events instead. HOST
        delivery only; other events still reach on_event. Raises TimeoutError
        (outstanding tickets cancelled) when `timeout` seconds pass first."""
        if not self._collect:
            raise MisuseError(Status.E_MISUSE, "load() needs HOST delivery: events arrive through dispatch()")
        deadline = None if timeout is None else time.monotonic() + _seconds(timeout)
        self.set_items(urls)
        results: list[Image | LazyImgError | None] = [None] * len(urls)
        tickets: dict[int, int] = {}
        for row in range(len(urls)):
            try:
                answer = self.request(row)
            except LazyImgError as error:
                results[row] = error
                continue
            if answer.status == Status.OK and answer.image is not None:
                results[row] = answer.image
            else:
                tickets[answer.ticket] = row
        while tickets:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not self.wait(timeout=left):
                for ticket in tickets:
                    self.cancel(ticket)
                self.dispatch()
                raise TimeoutError(f"load(): {len(tickets)} of {len(urls)} rows had no answer within {timeout} s")
            for event in self.dispatch():
                # A preview is not the row's answer: its IMAGE follows.
                row = tickets.pop(event.ticket, -1) if event.type != EventType.PREVIEW else -1
                if row >= 0:
                    results[row] = event.image if event.image is not None else event.error()
        return [result for result in results if result is not None]

    # ------------------------------------------------------------ events

    @property
    def fd(self) -> int:
        """lazyimg_event_fd: readable (level-triggered) while events wait;
        for select, selectors, loop.add_reader, QSocketNotifier or
        GLib.unix_fd_add_full. -1 in THREAD delivery."""
        return int(lib.lazyimg_event_fd(self._h()))

    event_fd = fd

    def dispatch(self, max: int = 0) -> list[Event]:  # noqa: A002 (the C parameter's name)
        """lazyimg_dispatch: runs up to `max` waiting events (0 = all) on
        this thread and returns them as a list of Event. Re-raises the first
        exception a callback raised (later ones are attached as notes)."""
        lib.lazyimg_dispatch(self._h(), _rows(max, "max"))
        events, self._ran = self._ran, []
        self._raise_callback_errors()
        return events

    def wait(self, *, timeout: float | None = None) -> bool:
        """Blocks until events wait (True) or `timeout` seconds pass (False);
        None waits as long as it takes. Ctrl-C (SIGINT) interrupts it with
        KeyboardInterrupt, as it does time.sleep. HOST delivery only (THREAD
        delivery raises MisuseError). Releases the GIL while it blocks.

        Since 0.4.0 the timeout is in seconds and keyword-only: a call
        written for the old milliseconds, wait(5000), raises TypeError
        instead of waiting 83 minutes."""
        handle = self._h()
        deadline = None if timeout is None or math.isinf(_seconds(timeout)) else time.monotonic() + timeout
        fd = int(lib.lazyimg_event_fd(handle))
        if fd < 0:
            check(lib.lazyimg_wait(handle, 0), "wait() needs HOST delivery")
        # poll() on the event fd rather than a blocking lazyimg_wait: Python
        # retries it after a signal and raises what the signal's handler
        # raised (KeyboardInterrupt).
        if self._poller is None:
            self._poller = select.poll()
            self._poller.register(fd, select.POLLIN)
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic()) * 1000.0
            if not self._poller.poll(left):
                ready = False
                break
            # The fd is signalled as an event is queued, under the queue's
            # lock; lazyimg_wait takes that lock, so it sees the event (a
            # dispatch right after the poll alone may not yet). TIMEOUT: another
            # thread took it first.
            if check(lib.lazyimg_wait(handle, 0)) == Status.OK:
                ready = True
                break
        self._raise_callback_errors()
        return ready

    def _handle_event(self, event: Event) -> None:
        """Each event, on the thread that delivers it."""
        if self._collect:
            self._ran.append(event)
        if self._on_event is not None:
            self._on_event(event)

    def _raise_callback_errors(self) -> None:
        with self._errors_lock:
            errors, self._errors = self._errors, []
        if errors:
            first = errors[0]
            for later in errors[1:]:
                first.add_note(f"also raised in a lazyimg callback: {later!r}")
            raise first

    # ------------------------------------------------------ stats, memory

    def get_stats(self) -> Stats:
        """lazyimg_get_stats: the counters as a Stats dataclass (fields named
        as in C)."""
        stats = StatsStruct(struct_size=ctypes.sizeof(StatsStruct))
        check(lib.lazyimg_get_stats(self._h(), ctypes.byref(stats)))
        return Stats.from_struct(stats)

    def trim_memory(self, level: int) -> None:
        """lazyimg_trim_memory: shrinks the memory cache to half its limit
        (TRIM_MODERATE) or to nothing (TRIM_COMPLETE). Images you hold stay
        valid."""
        if level not in (1, 2) or isinstance(level, bool):
            raise ValueError(f"level must be lazyimg.TRIM_MODERATE or lazyimg.TRIM_COMPLETE, got {level!r}")
        lib.lazyimg_trim_memory(self._h(), int(level))

    # -------------------------------------------------------- disk cache

    def disk_cache_clear(self) -> None:
        """lazyimg_disk_cache_clear: removes every entry of the loader's disk
        cache (its session's, if it has one; other loaders and processes on
        the directory see it empty too). The memory cache is kept. Blocks for
        the file deletions (without the GIL): not for a per-frame path. Does
        nothing without a disk cache."""
        check(lib.lazyimg_disk_cache_clear(self._h()))

    def disk_cache_remove_url(self, url: URL) -> None:
        """lazyimg_disk_cache_remove_url: forgets `url` (str or bytes) on disk
        (its original and the thumbnails of every box) and in this loader's
        memory cache, so its next request downloads it. Blocks for the file
        deletions. Does nothing when it was not cached."""
        check(lib.lazyimg_disk_cache_remove_url(self._h(), to_bytes("url", url)))

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{len(self)} rows"
        return f"<lazyimg.{type(self).__name__} {state}>"


# The parameters' defaults: values equal to them keep lazyimg_config_init's.
_DEFAULTS: dict[str, Any] = {name: value for name, value in (Loader.__init__.__kwdefaults__ or {}).items()
                             if name in FIELDS}


def load(urls: Sequence[URL | None], *, target_width: int = 0, target_height: int = 0, fit: Fit = Fit.INSIDE,
         session: Session | None = None, timeout: float | None = None) -> list[Image | LazyImgError]:
    """Loads `urls` with a loader of its own (closed before it returns) and
    returns, for each, its Image or the LazyImgError it failed with: a
    contact sheet in one call. The images stay valid. Loader.load does the
    same with any loader configuration."""
    with Loader(target_width=target_width, target_height=target_height, fit=fit, session=session) as loader:
        return loader.load(urls, timeout=timeout)


def _wrap(pointer: int | None) -> Image | None:
    return wrap(pointer) if pointer else None


def _seconds(timeout: object) -> float:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(f"timeout must be a number of seconds or None, not {type(timeout).__name__}")
    if math.isnan(timeout) or timeout < 0:
        raise ValueError(f"timeout must be >= 0 seconds (None waits as long as it takes), got {timeout!r}")
    return float(timeout)


def _url_array(urls: Sequence[URL | None], name: str, what: str = "URLs") -> tuple[Any, int]:
    """A const char *const * of `urls` (None stays NULL: a row without an
    image). A str or bytes is a TypeError: it would be one row per
    character."""
    if isinstance(urls, (str, bytes, bytearray)):
        raise TypeError(f"{name} must be a list of {what}, not one {type(urls).__name__} "
                        f"(it would make a row of each character); wrap it: [{urls!r}]")
    try:
        items = [None if url is None else to_bytes(f"{name}[{index}]", url) for index, url in enumerate(urls)]
    except TypeError as error:
        if "[" in str(error):
            raise
        raise TypeError(f"{name} must be a list of {what}, not {type(urls).__name__}") from None
    return (ctypes.c_char_p * len(items))(*items), len(items)
