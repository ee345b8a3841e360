"""Fixtures: the loopback image server (image_server.py).

The binding is imported from ../ (bindings/python), or, with
LAZYIMG_TEST_INSTALLED=1, as installed (a wheel or pip install in a venv);
the library as the binding finds it (the Makefile's check-python sets
LAZYIMG_LIBRARY for the source tree).
"""
import os
import sys

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

from image_server import BLUE, GREEN, HALF_BLUE, RED, ImageServer  # noqa: E402,F401


@pytest.fixture
def server():
    s = ImageServer()
    yield s
    s.stop()
