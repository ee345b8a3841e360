"""lazyimg.aio: the loader's fd in the asyncio loop, awaitable requests."""
import asyncio
import gc

import pytest

from lazyimg import LazyImgError, Status
from lazyimg.aio import AsyncLoader


def test_awaited_requests_resolve_from_the_loops_reader(server):
    async def main():
        async with AsyncLoader(target_width=8, target_height=8) as loader:
            loader.set_items([server.url("/red.png"), server.url("/green.png"), server.url("/missing.png")])
            results = await asyncio.gather(loader.image(0), loader.image(1), loader.image(2),
                                           return_exceptions=True)
            again = await loader.image(0)  # from memory, no event
            return results, again

    (red, green, missing), again = asyncio.run(asyncio.wait_for(main(), 60))
    assert red.size == (8, 4) and green.size == (8, 8) and again.size == (8, 4)
    assert isinstance(missing, LazyImgError) and missing.status == Status.E_HTTP
    assert "404" in missing.message


@pytest.mark.parametrize("awaiting", ["image", "data"])
def test_cancelling_the_awaiting_task_cancels_the_ticket(server, awaiting):
    async def main():
        cancelled = asyncio.get_running_loop().create_future()
        async with AsyncLoader(on_event=cancelled.set_result) as loader:
            loader.set_items([server.url("/slow/0.png")])
            if awaiting == "image":
                task = asyncio.ensure_future(loader.image(0))
            else:
                task = asyncio.ensure_future(loader.data(server.url("/slow/1.png")))
            await asyncio.sleep(0)  # one loop turn: the task sends its request
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            # The ticket's CANCELLED event arrives through the loop's reader.
            return await cancelled

    event = asyncio.run(asyncio.wait_for(main(), 60))
    assert event.status == Status.E_CANCELLED and event.row == 0


def test_async_loader_needs_host_delivery():
    from lazyimg import Delivery

    async def main():
        AsyncLoader(delivery=Delivery.THREAD)

    with pytest.raises(ValueError, match="HOST"):
        asyncio.run(main())


def test_awaited_data_returns_the_body_and_raises_for_failures(server):
    async def main():
        async with AsyncLoader() as loader:
            return await asyncio.gather(loader.data(server.url("/feed.json")),
                                        loader.data(server.url("/missing.json")),
                                        return_exceptions=True)

    feed, missing = asyncio.run(asyncio.wait_for(main(), 60))
    assert feed == server.files["/feed.json"]
    assert isinstance(missing, LazyImgError) and missing.status == Status.E_HTTP



def test_rows_the_scroll_policy_cancels_are_cancelled_tasks_not_failures(server):
    """Rows that leave the screen end CANCELLED: their image() tasks are
    cancelled, gather returns CancelledError for them, and a task nobody
    awaited logs nothing (no "Task exception was never retrieved")."""
    async def main():
        logged = []
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: logged.append(context))
        async with AsyncLoader() as loader:
            loader.set_items([server.url(f"/slow/{n}.png") for n in range(8)] + [server.url("/green.png")] * 200)
            loader.set_visible_range(0, 4)
            gathered = asyncio.gather(*(loader.image(row) for row in range(2)), return_exceptions=True)
            unawaited = [asyncio.ensure_future(loader.image(row)) for row in range(2, 4)]
            await asyncio.sleep(0)  # one loop turn: the tasks send their requests
            loader.set_visible_range(150, 4)  # flung away: rows 0-3 leave
            results = await gathered
            await asyncio.wait(unawaited)
            states = [task.cancelled() for task in unawaited]
            del unawaited
            gc.collect()
        return results, states, logged

    results, states, logged = asyncio.run(asyncio.wait_for(main(), 60))
    assert all(isinstance(result, asyncio.CancelledError) for result in results), results
    assert states == [True, True]
    assert logged == []
