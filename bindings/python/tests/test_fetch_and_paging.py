"""Feeds: lazyimg_fetch's DATA events and lazyimg_set_paging's NEED_PAGE,
against the loopback server."""
import pytest

from lazyimg import EventType, LazyImgError, Loader, Source, Status
from waiting import WAIT_S, events_for, events_until


def test_fetch_returns_the_body_as_bytes(server):
    with Loader() as loader:
        feed, empty = loader.fetch(server.url("/feed.json")), loader.fetch(server.url("/empty"))
        assert feed and empty and feed != empty
        events = events_for(loader, [feed, empty])
        event = events[feed]
        assert event.type == EventType.DATA and event.ok and event.status == Status.OK
        assert event.data == server.files["/feed.json"] and isinstance(event.data, bytes)
        assert event.row == 0 and event.image is None and event.source == Source.NETWORK
        assert "DATA" in repr(event)
        # An empty body is NULL in C: b"" here, not None.
        assert events[empty].type == EventType.DATA and events[empty].data == b""
        stats = loader.get_stats()
        assert stats.bytes_downloaded >= len(event.data) and stats.downloads_started == 0


def test_fetch_failures_are_failed_events_and_bad_urls_raise(server):
    with Loader() as loader:
        ticket = loader.fetch(server.url("/missing.json"))
        event = events_for(loader, [ticket])[ticket]
        assert event.type == EventType.FAILED and event.data is None
        assert event.status == Status.E_HTTP and event.http_status == 404
        with pytest.raises(LazyImgError) as raised:
            event.raise_for_status()
        assert "404" in raised.value.message
        with pytest.raises(LazyImgError) as raised:
            loader.fetch("ftp://example.invalid/feed.json")
        assert raised.value.status == Status.E_BAD_URL
        assert not loader.wait(timeout=0), "a refused fetch sends no event"


def test_a_cancelled_fetch_ends_cancelled(server):
    with Loader() as loader:
        ticket = loader.fetch(server.url("/slow/0.png"))
        assert loader.cancel(ticket) is True
        assert events_for(loader, [ticket])[ticket].status == Status.E_CANCELLED


def test_need_page_arrives_once_near_the_end_and_rearms_on_append(server):
    # The scheduler's step queues NEED_PAGE a moment after the call that makes it
    # due, in the order of the calls: that an event is the only one dispatched
    # shows the calls before it made none.
    page = [server.url("/green.png")] * 20
    with Loader() as loader:
        loader.set_items(page)
        loader.set_paging(5, True)
        loader.set_visible_range(0, 10)  # ends 10 rows before the end: no page yet
        loader.set_visible_range(12, 10)  # reaches the end (clamped to row 19)
        assert loader.wait(timeout=WAIT_S), "NEED_PAGE follows the view change"
        [event] = loader.dispatch()
        assert event.type == EventType.NEED_PAGE and event.ok and event.status == Status.OK
        assert event.row == 20 and event.ticket == 0 and event.url == "" and event.data is None
        assert "NEED_PAGE" in repr(event)
        loader.set_visible_range(13, 7)  # still near the end: asked once only
        loader.append_items(page)  # the next page re-arms it
        loader.set_visible_range(30, 10)
        assert loader.wait(timeout=WAIT_S)
        [event] = loader.dispatch()
        assert event.type == EventType.NEED_PAGE and event.row == 40
        loader.set_paging(5, False)  # the feed has ended: no more pages asked for
        loader.append_items(page)
        loader.set_visible_range(50, 10)
        # A fetch queued after those calls ends after the scheduler read them.
        ticket = loader.fetch(server.url("/feed.json"))
        events = events_until(loader, ticket)
        assert [event.type for event in events] == [EventType.DATA]


def test_need_page_reaches_on_event(server):
    seen = []
    with Loader(on_event=seen.append) as loader:
        loader.set_items([server.url("/green.png")] * 4)
        loader.set_visible_range(0, 4)
        loader.set_paging(2, 1)  # checked at once
        assert loader.wait(timeout=WAIT_S)
        loader.dispatch()
    assert [(event.type, event.row) for event in seen] == [(EventType.NEED_PAGE, 4)]


def test_paging_and_fetch_validate_their_arguments():
    loader = Loader()
    with pytest.raises(ValueError, match="distance_rows"):
        loader.set_paging(-1, True)
    loader.close()
    with pytest.raises(ValueError, match="closed"):
        loader.set_paging(5, True)
    with pytest.raises(ValueError, match="closed"):
        loader.fetch("http://127.0.0.1/feed.json")
