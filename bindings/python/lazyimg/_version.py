"""The binding's version: the header's LAZYIMG_VERSION_STRING, which
tests/test_header_match.py compares it with. pyproject.toml reads it too."""
__version__ = "0.4.0"
