"""A loopback HTTP server (http.server in a thread) serving real PNGs, for
the binding's tests and the recipes' (examples/tests)."""
import http.server
import sys
import threading
import urllib.parse

from images import png

RED = (255, 0, 0, 255)
GREEN = (0, 255, 0, 255)
HALF_BLUE = (0, 0, 255, 128)
BLUE = (0, 0, 255, 255)


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
            "/opaque-blue.png": png(24, 24, BLUE),
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
                # A query names another URL of the same file (the recipes' rows).
                path = urllib.parse.urlsplit(path).path
                with server.arrived:
                    server.paths.append(path)
                    server.arrived.notify_all()
                if path.startswith("/slow/"):
                    server.release.wait()
                if path == "/loop":  # a redirect to itself: the client's limit ends it
                    self.send_response(302)
                    self.send_header("Location", "/loop")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
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
