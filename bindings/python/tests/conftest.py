"""Fixtures: a loopback HTTP server (http.server in a thread) serving real PNGs.

The binding is imported from ../ (bindings/python), or, with
LAZYIMG_TEST_INSTALLED=1, as installed (a wheel or pip install in a venv);
the library as the binding finds it (the Makefile's check-python sets
LAZYIMG_LIBRARY for the source tree).
"""
import http.server
import os
import sys
import threading
import urllib.parse

import pytest

# bindings/python holds the package and the examples the tests run: first on
# the path, or, testing an installed lazyimg, last (for the examples only).
BINDING = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
INSTALLED = os.environ.get("LAZYIMG_TEST_INSTALLED", "0") not in ("", "0")
if INSTALLED:
    sys.path.append(BINDING)
else:
    sys.path.insert(0, BINDING)
sys.path.insert(0, os.path.dirname(__file__))

from images import png  # noqa: E402

RED = (255, 0, 0, 255)
GREEN = (0, 255, 0, 255)
HALF_BLUE = (0, 0, 255, 128)


class QuietHTTPServer(http.server.ThreadingHTTPServer):
    """Says nothing when a client hangs up mid-response: the loader does that
    whenever it cancels a download."""

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class ImageServer:
    """Serves `files` (path -> bytes); anything else is 404. /slow/... paths
    answer only once `release` is set. Records each request's headers, path
    (hits(), wait_for_hits()) and client port (one per connection). As a proxy too: a request for an
    absolute URL (http://any.host/red.png) is recorded in `proxied` and
    answered from `files` by its path."""

    def __init__(self):
        self.files = {
            "/red.png": png(40, 20, RED),
            "/green.png": png(16, 16, GREEN),
            "/blue.png": png(10, 10, HALF_BLUE),
            "/corrupt.png": png(16, 16, RED)[:60],
            "/text.txt": b"not an image at all, just some text" * 4,
            "/feed.json": b'{"page": 2, "images": ["/red.png", "/green.png"]}',
            "/empty": b"",
        }
        for n in range(8):
            self.files[f"/slow/{n}.png"] = png(8, 8, GREEN)
        self.files["/slow/red.png"] = self.files["/red.png"]
        self.files["/slow/blue.png"] = self.files["/blue.png"]
        self.release = threading.Event()
        self.headers = []
        self.paths = []
        self.extra_headers = {}  # path -> {name: value} sent with its 200
        self.arrived = threading.Condition()
        self.client_ports = []
        self.proxied = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                server.headers.append(dict(self.headers))
                server.client_ports.append(self.client_address[1])
                path = self.path
                if not path.startswith("/"):
                    server.proxied.append(path)
                    path = urllib.parse.urlsplit(path).path
                with server.arrived:
                    server.paths.append(path)
                    server.arrived.notify_all()
                if path.startswith("/slow/"):
                    server.release.wait()
                body = server.files.get(path)
                self.send_response(200 if body is not None else 404)
                body = body if body is not None else b"not found"
                self.send_header("Content-Length", str(len(body)))
                for name, value in server.extra_headers.get(path, {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = QuietHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        # A short poll interval: stop() waits for serve_forever to see it.
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.01,), daemon=True)
        self.thread.start()

    def hits(self, path):
        """Requests for `path` so far."""
        with self.arrived:
            return self.paths.count(path)

    def wait_for_hits(self, path, count, timeout=30):
        """True once `path` (None: any path) had `count` requests, False after
        `timeout` s."""
        with self.arrived:
            return self.arrived.wait_for(
                lambda: (len(self.paths) if path is None else self.paths.count(path)) >= count, timeout)

    def url(self, path):
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"

    def stop(self):
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = ImageServer()
    yield s
    s.stop()
