"""Sessions and the disk cache through the binding, against the loopback
server with the real library: the server's hit counts prove what was
downloaded, shared or read from disk."""
import gc
import os
import shutil
import subprocess
import warnings

import pytest

import lazyimg
from lazyimg import ClosedError, LazyImgError, Loader, Session, Source, Status
from waiting import load

RED, GREEN = "/red.png", "/green.png"


def thumbnail_loader(box, **options):
    return Loader(target_width=box, target_height=box, **options)


def sources(events):
    return {row: event.source for row, event in events.items()}


def fill_disk_cache(server, directory):
    """A loader on `directory` downloads red and green; closing it waits for
    its disk writes (they follow the events)."""
    with thumbnail_loader(20, disk_cache_dir=directory) as loader:
        loader.set_items([server.url(RED), server.url(GREEN)])
        assert sources(load(loader, [0, 1])) == {0: Source.NETWORK, 1: Source.NETWORK}
    assert (server.hits(RED), server.hits(GREEN)) == (1, 1)


def test_two_loaders_of_one_session_with_different_boxes_download_once(server):
    url = server.url("/slow/red.png")  # answered once release is set
    with Session() as session, thumbnail_loader(20, session=session) as list_view, \
            thumbnail_loader(10, session=session) as detail_view:
        assert list_view.session is session and detail_view.session is session
        for loader in (list_view, detail_view):
            loader.set_items([url])
            assert loader.request(0).status == Status.PENDING
        assert server.wait_for_hits("/slow/red.png", 1)
        server.release.set()
        wide = load_ticketed(list_view)
        narrow = load_ticketed(detail_view)
        assert server.hits("/slow/red.png") == 1, "one download for both loaders"
        assert (wide.image.size, narrow.image.size) == ((20, 10), (10, 5))
        assert wide.source == narrow.source == Source.NETWORK


def load_ticketed(loader):
    """The one event of the ticket already requested for row 0."""
    events = []
    while not events:
        assert loader.wait(timeout=30)
        events = loader.dispatch()
    (event,) = events
    assert event.row == 0 and event.ok, event
    return event


def test_a_second_loader_on_the_directory_shows_it_from_disk_and_clear_downloads_again(server, tmp_path):
    directory = tmp_path / "cache"  # missing: the library creates it
    fill_disk_cache(server, directory)
    with thumbnail_loader(20, disk_cache_dir=str(directory)) as loader:
        loader.set_items([server.url(RED), server.url(GREEN)])
        events = load(loader, [0, 1])
        assert sources(events) == {0: Source.DISK, 1: Source.DISK}
        assert events[0].image.size == (20, 10) and events[1].image.size == (16, 16)
        assert (server.hits(RED), server.hits(GREEN)) == (1, 1), "no request on the second run"
        stats = loader.get_stats()
        assert (stats.disk_hits, stats.downloads_started) == (2, 0)
        loader.disk_cache_clear()
        loader.trim_memory(lazyimg.TRIM_COMPLETE)
        assert sources(load(loader, [0, 1])) == {0: Source.NETWORK, 1: Source.NETWORK}
        assert (server.hits(RED), server.hits(GREEN)) == (2, 2)


def test_remove_url_forgets_one_url_on_disk_and_in_memory(server, tmp_path):
    fill_disk_cache(server, tmp_path)
    with thumbnail_loader(20, disk_cache_dir=tmp_path) as loader:
        loader.set_items([server.url(RED), server.url(GREEN)])
        loader.disk_cache_remove_url(server.url(RED))
        assert sources(load(loader, [0, 1])) == {0: Source.NETWORK, 1: Source.DISK}
        assert (server.hits(RED), server.hits(GREEN)) == (2, 1)
        loader.disk_cache_remove_url(server.url(GREEN).encode())  # bytes too
        assert loader.lookup(1) is None and loader.lookup(0) is not None
        assert sources(load(loader, [1])) == {1: Source.NETWORK}
        assert server.hits(GREEN) == 2
        loader.disk_cache_remove_url(server.url("/never-cached.png"))  # harmless


def test_the_session_outlives_its_host_reference_and_shares_its_disk_cache(server, tmp_path):
    session = Session(disk_cache_dir=tmp_path, disk_cache_bytes=1 << 20)
    ignored = tmp_path / "ignored"
    first = thumbnail_loader(20, session=session, disk_cache_dir=ignored)
    second = thumbnail_loader(20, session=session)
    session.close()  # the loaders keep the library's session alive
    session.close()
    assert session.closed and first.session is session
    with first:
        first.set_items([server.url(RED)])
        assert load(first, [0])[0].source == Source.NETWORK
    assert first.session is None
    with second:
        second.set_items([server.url(RED)])
        assert load(second, [0])[0].source == Source.DISK
    assert server.hits(RED) == 1
    assert not ignored.exists(), "a loader of a session uses the session's disk cache"


def test_a_loader_keeps_an_unnamed_session_until_it_is_closed(server, tmp_path):
    with thumbnail_loader(20, session=Session(disk_cache_dir=tmp_path)) as loader:
        gc.collect()
        assert not loader.session.closed
        loader.set_items([server.url(GREEN)])
        assert load(loader, [0])[0].ok
        session = loader.session
    with pytest.warns(ResourceWarning, match="Session was not closed"):
        del session
        gc.collect()


def test_the_sessions_memory_budget_evicts_across_its_loaders(server):
    # green decodes to 16*16*4 = 1024 bytes, blue to 10*10*4 = 400.
    with Session(memory_cache_bytes=1100) as session, Loader(session=session) as first, \
            Loader(session=session) as second:
        first.set_items([server.url(GREEN)])
        second.set_items([server.url("/blue.png"), server.url(GREEN)])
        load(first, [0])
        load(second, [0])  # 1424 bytes together: first's green, the oldest, goes
        load(second, [1])  # a whole round trip later, that eviction is long done
        assert first.lookup(0) is None
        assert second.lookup(1) is not None, "the newest stays"
    with Session(memory_cache_bytes=0) as session, Loader(session=session) as first, \
            Loader(session=session) as second:
        first.set_items([server.url(GREEN)])
        second.set_items([server.url("/blue.png"), server.url(GREEN)])
        load(first, [0])
        load(second, [0])
        load(second, [1])
        assert first.lookup(0) is not None, "0: no shared limit"


@pytest.mark.parametrize("limit", [1, 2])
def test_the_sessions_max_concurrent_downloads_holds_for_all_its_loaders(server, limit):
    with Session(max_concurrent_downloads=limit) as session, Loader(session=session) as first, \
            Loader(session=session) as second:
        first.set_items([server.url("/slow/1.png")])
        second.set_items([server.url("/slow/2.png")])
        first.request(0)
        second.request(0)
        assert server.wait_for_hits(None, limit), "both at once only with a limit of 2"
        server.release.set()
        load_ticketed(first)
        load_ticketed(second)
    # With 1, one transfer at a time: the second reused the first's connection.
    assert len(server.client_ports) == 2 and len(set(server.client_ports)) == limit


def du_bytes(path):
    """What `du` says the directory takes, in bytes (allocated blocks)."""
    return int(subprocess.run(["du", "-sk", str(path)], check=True, capture_output=True,
                              text=True).stdout.split()[0]) * 1024


@pytest.mark.skipif(shutil.which("du") is None, reason="needs the du command")
def test_the_sessions_disk_cache_bytes_bounds_the_directory_as_du_counts_it(server, tmp_path):
    # The limit counts allocated blocks and directories, so what three images take
    # depends on the file system: learn it from an unbounded cache first.
    urls = [server.url(path) for path in (RED, GREEN, "/blue.png")]

    def fill(directory, limit):
        with Session(disk_cache_dir=directory, disk_cache_bytes=limit) as session:
            with thumbnail_loader(20, session=session) as loader:
                loader.set_items(urls)
                for row in range(3):  # one after another: red is the oldest
                    load(loader, [row])
            with thumbnail_loader(20, session=session) as loader:
                before = loader.get_stats()
                loader.set_items(urls)
                events = load(loader, range(3))
                return before, events

    unbounded, events = fill(tmp_path / "all", 0)  # 0: the default, 256 MiB
    assert unbounded.disk_evictions == 0
    assert [events[row].source for row in range(3)] == [Source.DISK] * 3
    needed = du_bytes(tmp_path / "all")

    limit = needed - 1
    bounded, events = fill(tmp_path / "bounded", limit)
    assert bounded.disk_evictions > 0, "three images do not fit in one byte less"
    assert all(events[row].image is not None for row in range(3))
    block = os.statvfs(tmp_path).f_frsize
    assert du_bytes(tmp_path / "bounded") <= limit + block, "over by at most one entry (one block here)"


def test_serve_stale_answers_from_disk_when_the_server_is_gone(server, tmp_path):
    url = server.url("/no-cache.png")
    server.files["/no-cache.png"] = server.files[GREEN]
    server.extra_headers["/no-cache.png"] = {"Cache-Control": "no-cache"}  # stale at once
    with thumbnail_loader(20, disk_cache_dir=tmp_path) as loader:
        loader.set_items([url])
        assert load(loader, [0])[0].source == Source.NETWORK
    server.stop()
    with thumbnail_loader(20, disk_cache_dir=tmp_path) as loader:  # disk_cache_serve_stale=1 by default
        loader.set_items([url])
        stale = load(loader, [0])[0]
        assert stale.source == Source.DISK and stale.image.size == (16, 16)
    with thumbnail_loader(20, disk_cache_dir=tmp_path, disk_cache_serve_stale=0) as loader:
        loader.set_items([url])
        failed = load(loader, [0])[0]
        assert failed.status == Status.E_NETWORK and failed.source == Source.NONE


def test_misuse_raises_the_bindings_error_with_its_status(server, tmp_path):
    session = Session()
    session.close()
    with pytest.raises(ClosedError) as raised:
        Loader(session=session)
    assert raised.value.status == Status.E_MISUSE and "session is closed" in str(raised.value)
    assert isinstance(raised.value, LazyImgError) and isinstance(raised.value, ValueError)
    with pytest.raises(TypeError, match="lazyimg.Session"):
        Loader(session=1234)
    with pytest.raises(TypeError, match="target_width"):
        Session(target_width=8)
    with pytest.raises(ValueError, match="max_concurrent_downloads must be between 0 and 64, got 65"):
        Session(max_concurrent_downloads=65)
    not_a_directory = tmp_path / "file"
    not_a_directory.write_bytes(b"x")
    for make in (Session, Loader):
        with pytest.raises(LazyImgError) as raised:
            make(disk_cache_dir=not_a_directory)
        assert raised.value.status == Status.E_IO
    with Loader() as loader:
        loader.disk_cache_clear()  # no disk cache: OK
        loader.disk_cache_remove_url(server.url(RED))
        for call in (loader.disk_cache_remove_url, loader.fetch, loader.lookup_url):
            with pytest.raises(TypeError, match="url must be str or bytes, not NoneType"):
                call(None)
    for call in (loader.disk_cache_clear, lambda: loader.disk_cache_remove_url("x")):
        with pytest.raises(ClosedError) as raised:
            call()
        assert raised.value.status == Status.E_MISUSE
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Session().close()  # closed: no ResourceWarning
