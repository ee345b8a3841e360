"""Fixtures for the recipes' tests: the binding's loopback image server, a
feed of rows cycling through three colours, and an Xvfb display."""
import os
import subprocess
import sys

import pytest

EXAMPLES = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(EXAMPLES, "..", "tests"))
sys.path.insert(0, EXAMPLES)

from image_server import ImageServer  # noqa: E402

COLOURS = {"/red.png": "#ff0000", "/green.png": "#00ff00", "/opaque-blue.png": "#0000ff"}


class Feed:
    """`count` rows, row i one of the three colours, each its own URL."""

    def __init__(self, server, count=60):
        paths = list(COLOURS)
        self.paths = [paths[row % len(paths)] for row in range(count)]
        self.urls = [server.url(path) + f"?row={row}" for row, path in enumerate(self.paths)]

    def colour(self, row):
        return COLOURS[self.paths[row]]


@pytest.fixture
def feed():
    server = ImageServer()
    yield Feed(server)
    server.stop()


@pytest.fixture
def xvfb():
    """DISPLAY of a new Xvfb server (it writes its display number to a pipe)."""
    read, write = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
                              pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        display = pipe.readline().strip()
    try:
        assert display, "Xvfb did not start"
        yield f":{display}"
    finally:
        server.terminate()
        server.wait(timeout=10)
