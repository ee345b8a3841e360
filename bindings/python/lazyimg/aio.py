"""asyncio: a Loader driven by the event loop, with awaitable requests and fetches.

    async with lazyimg.aio.AsyncLoader(target_width=64, target_height=64) as loader:
        loader.set_items(urls)
        images = await asyncio.gather(*(loader.image(row) for row in range(len(urls))))
        feed = await loader.fetch(feed_url)  # bytes

The loader's fd is registered with loop.add_reader (it is level-triggered:
readable while events wait), and each readiness runs dispatch() on the loop's
thread. Every other Loader method is available unchanged (Loader.fetch, which
returns a ticket, as loader.loader.fetch). NEED_PAGE events reach on_event.
"""
import asyncio

from .constants import Delivery
from .loader import Loader


class AsyncLoader:
    def __init__(self, on_event=None, **options):
        if int(options.get("delivery", Delivery.HOST)) != Delivery.HOST:
            raise ValueError("AsyncLoader needs HOST delivery: events run on the loop's thread")
        self._loop = asyncio.get_running_loop()
        self._waiting = {}  # ticket -> Future
        self._on_event = on_event
        self.loader = Loader(on_event=self._route, **options)
        self._loop.add_reader(self.loader.fd, self.loader.dispatch)

    def __getattr__(self, name):
        return getattr(self.loader, name)

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc_info):
        self.close()

    def close(self):
        """Stops watching the fd and closes the loader; requests still
        awaited fail with LazyImgError(E_CANCELLED)."""
        if not self.loader.closed:
            self._loop.remove_reader(self.loader.fd)
            self.loader.close()

    async def image(self, row):
        """The Image for `row`: at once from memory, else when its event
        arrives. Raises LazyImgError (with the event's message) on failure.
        Cancelling the awaiting task cancels the ticket."""
        result = self.loader.request(row)
        if result.image is not None:
            return result.image
        return (await self._event(result.ticket)).image

    async def fetch(self, url):
        """The body of `url` as bytes (lazyimg_fetch: a feed page, any data,
        through the loader's network stack). Raises LazyImgError on failure;
        cancelling the awaiting task cancels the transfer."""
        return (await self._event(self.loader.fetch(url))).data

    async def _event(self, ticket):
        """The ticket's one event; its error raised for FAILED."""
        future = self._loop.create_future()
        self._waiting[ticket] = future
        try:
            return await future
        except asyncio.CancelledError:
            self._waiting.pop(ticket, None)
            if not self.loader.closed:
                self.loader.cancel(ticket)
            raise

    def _route(self, event):
        future = self._waiting.pop(event.ticket, None)
        if future is not None and not future.done():
            if event.ok:
                future.set_result(event)
            else:
                future.set_exception(event.error())
        if self._on_event is not None:
            self._on_event(event)
