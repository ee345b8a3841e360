"""preview_interval_ms: PREVIEW events of a progressive JPEG while the rest
downloads, from a loopback server that holds the later scans back until the
test (or its on_event) has seen a preview."""
import asyncio
import http.server
import io
import random
import threading

import PIL.Image
import pytest

from image_server import QuietHTTPServer
from lazyimg import EventType, Loader, Status
from lazyimg.aio import AsyncLoader
from waiting import WAIT_S


def progressive_jpeg():
    rng = random.Random(7)
    picture = PIL.Image.new("RGB", (256, 256))
    picture.putdata([(x, y, rng.randrange(256)) for y in range(256) for x in range(256)])
    out = io.BytesIO()
    picture.save(out, "JPEG", quality=85, progressive=True)
    return out.getvalue()


class StallingServer:
    """Serves one progressive JPEG: the bytes before its third scan at once,
    the rest once `release` is set."""

    def __init__(self):
        self.body = progressive_jpeg()
        third_scan = self.body.find(b"\xff\xda", self.body.find(b"\xff\xda", self.body.find(b"\xff\xda") + 2) + 2)
        assert third_scan > 0
        self.split = third_scan + 2
        self.release = threading.Event()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Length", str(len(server.body)))
                self.end_headers()
                self.wfile.write(server.body[:server.split])
                self.wfile.flush()
                server.release.wait()
                self.wfile.write(server.body[server.split:])

            def log_message(self, *args):
                pass

        self.httpd = QuietHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, args=(0.01,), daemon=True).start()

    def url(self):
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/p.jpg"

    def stop(self):
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def stalling():
    s = StallingServer()
    yield s
    s.stop()


def release_on_preview(server, seen):
    def on_event(event):
        seen.append(event)
        if event.type == EventType.PREVIEW:
            server.release.set()
    return on_event


def test_a_preview_at_the_box_comes_before_the_tickets_image(stalling):
    with Loader(target_width=128, target_height=128, preview_interval_ms=1) as loader:
        loader.set_items([stalling.url()])
        loader.set_visible_range(0, 1)
        ticket = loader.request(0).ticket
        events = []
        while not events or events[-1].type == EventType.PREVIEW:
            assert loader.wait(timeout=WAIT_S), "no event within 30 s"
            for event in loader.dispatch():
                events.append(event)
                if event.type == EventType.PREVIEW:
                    stalling.release.set()
    preview, final = events[0], events[-1]
    assert preview.type == EventType.PREVIEW and preview.status == Status.OK and preview.ok
    assert preview.ticket == ticket and preview.row == 0
    assert preview.image.size == (128, 128) and "PREVIEW" in repr(preview)
    assert final.type == EventType.IMAGE and final.ticket == ticket and final.image.size == (128, 128)
    assert preview.image.tobytes() != final.image.tobytes(), "fewer scans than the whole file"
    assert [e.type for e in events].count(EventType.IMAGE) == 1


def test_zero_gives_no_preview(stalling):
    stalling.release.set()
    with Loader(target_width=128, target_height=128) as loader:
        loader.set_items([stalling.url()])
        loader.set_visible_range(0, 1)
        loader.request(0)
        assert loader.wait(timeout=WAIT_S)
        assert [e.type for e in loader.dispatch()] == [EventType.IMAGE]


def test_load_returns_the_final_image_only(stalling):
    seen = []
    with Loader(target_width=128, target_height=128, preview_interval_ms=1,
                on_event=release_on_preview(stalling, seen)) as loader:
        (image,) = loader.load([stalling.url()], timeout=WAIT_S)
    assert [e.type for e in seen][-1] == EventType.IMAGE and EventType.PREVIEW in [e.type for e in seen]
    assert image.tobytes() == seen[-1].image.tobytes()


def test_awaited_image_is_the_final_one(stalling):
    seen = []

    async def main():
        async with AsyncLoader(target_width=128, target_height=128, preview_interval_ms=1,
                               on_event=release_on_preview(stalling, seen)) as loader:
            loader.set_items([stalling.url()])
            loader.set_visible_range(0, 1)
            return await loader.image(0)

    image = asyncio.run(asyncio.wait_for(main(), 60))
    assert [e.type for e in seen][0] == EventType.PREVIEW and seen[-1].type == EventType.IMAGE
    assert image.tobytes() == seen[-1].image.tobytes()


def test_the_interval_is_checked():
    with pytest.raises(ValueError, match="preview_interval_ms"):
        Loader(preview_interval_ms=-1)
    with pytest.raises(TypeError, match="preview_interval_ms"):
        Loader(preview_interval_ms="fast")
