"""asyncio: a Loader driven by the running event loop, with awaitable images
and fetches.

    async with lazyimg.aio.AsyncLoader(target_width=64, target_height=64) as loader:
        loader.set_items(urls)
        images = await asyncio.gather(*(loader.image(row) for row in range(len(urls))))
        feed = await loader.data(feed_url)  # bytes
"""
from __future__ import annotations

import asyncio

from .constants import EventType, Status
from .errors import LazyImgError
from .event import Event
from .image import Image
from .loader import URL, Loader


class AsyncLoader(Loader):
    """A Loader whose events the running asyncio loop dispatches: its fd is
    registered with loop.add_reader (it is level-triggered: readable while
    events wait), and each readiness runs dispatch() on the loop's thread.
    Make it inside the loop (in an async function); it takes Loader's
    parameters, in HOST delivery only. Every Loader method works unchanged
    (fetch returns a ticket, as Loader's does); image(row) and data(url)
    are the awaitable ones. Events no one awaits (NEED_PAGE, fetch tickets)
    reach on_event. Do not call wait() or dispatch(): the loop does.

    A row the scroll policy cancels (it left the screen) is no failure: its
    image(row) is cancelled, so the awaiting task gets
    asyncio.CancelledError, a gather(..., return_exceptions=True) returns
    one, and a task no one awaits ends cancelled without a "Task exception
    was never retrieved" warning."""

    _loop: asyncio.AbstractEventLoop
    _waiting: dict[int, asyncio.Future[Event]]

    def _attach(self) -> None:
        try:
            if not self._collect:
                raise ValueError("AsyncLoader needs HOST delivery: events run on the loop's thread")
            try:
                self._loop = asyncio.get_running_loop()
            except RuntimeError:
                raise RuntimeError("AsyncLoader is made inside a running event loop (in an async function); "
                                   "a Loader works without one") from None
        except BaseException:
            self.close()
            raise
        self._waiting = {}
        self._loop.add_reader(self.fd, self._dispatch_ready)

    async def __aenter__(self) -> AsyncLoader:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stops watching the fd and closes the loader: images and data still
        awaited are cancelled (their tasks get asyncio.CancelledError)."""
        if self._handle and hasattr(self, "_waiting"):
            self._loop.remove_reader(self.fd)
        super().close()

    async def image(self, row: int) -> Image:
        """The Image for `row`: at once from memory, else when its event
        arrives. Raises the LazyImgError subclass of a failure (HTTPError,
        DecodeError, ...); asyncio.CancelledError when the ticket was
        cancelled (the row left the screen). Cancelling the awaiting task
        cancels the ticket."""
        result = self.request(row)
        if result.status == Status.OK and result.image is not None:
            return result.image
        image = (await self._event(result.ticket)).image
        assert image is not None
        return image

    async def data(self, url: URL) -> bytes:
        """The body of `url` as bytes (lazyimg_fetch: a feed page, any data,
        through the loader's network stack). Raises the LazyImgError
        subclass of a failure; cancelling the awaiting task cancels the
        transfer."""
        body = (await self._event(self.fetch(url))).data
        assert body is not None
        return body

    async def _event(self, ticket: int) -> Event:
        """The ticket's one event; its error raised for FAILED, the future
        cancelled for CANCELLED."""
        future: asyncio.Future[Event] = self._loop.create_future()
        self._waiting[ticket] = future
        try:
            return await future
        except asyncio.CancelledError:
            # Still waiting: the awaiting task was cancelled, not the ticket.
            if self._waiting.pop(ticket, None) is not None and not self.closed:
                self.cancel(ticket)
            raise

    def _dispatch_ready(self) -> None:
        if not self.closed:
            self.dispatch()

    def _handle_event(self, event: Event) -> None:
        # A preview is not the ticket's one event (image() returns the final
        # image): it reaches on_event only.
        awaited = event.ticket and event.type != EventType.PREVIEW
        future = self._waiting.pop(event.ticket, None) if awaited else None
        if future is not None and not future.done():
            if event.cancelled:
                future.cancel()
            elif event.ok:
                future.set_result(event)
            else:
                error = event.error()
                assert isinstance(error, LazyImgError)
                future.set_exception(error)
        super()._handle_event(event)


__all__ = ["AsyncLoader"]
