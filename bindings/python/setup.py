"""The optional C extension, lazyimg._speedups (everything else is in
pyproject.toml). It is built when a C compiler and Python's headers are
there; without them the install goes on and lazyimg uses the same code in
Python (lazyimg/_pure.py). LAZYIMG_REQUIRE_SPEEDUPS=1 makes a failed build an
error (make wheel sets it: a wheel always carries the extension).

One build serves CPython 3.11 and later: the extension uses the limited API,
so the wheel is tagged abi3."""
import os

from setuptools import Extension, setup

required = os.environ.get("LAZYIMG_REQUIRE_SPEEDUPS", "0") not in ("", "0")
speedups = Extension("lazyimg._speedups", ["lazyimg/_speedups.c"], py_limited_api=True, optional=not required,
                     extra_compile_args=["-std=c99"])

setup(ext_modules=[speedups], options={"bdist_wheel": {"py_limited_api": "cp311"}})
