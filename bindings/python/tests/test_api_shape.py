"""The API as an IDE and help() show it: real methods with docstrings,
Python conventions (seconds, dataclasses), and the C and Python per-frame
calls alike."""
import asyncio
import dataclasses
import inspect
import os

import pytest

import lazyimg
import lazyimg._pure
from lazyimg import Loader, Session
from lazyimg.aio import AsyncLoader
from lazyimg._structs import StatsStruct

PUBLIC_CLASSES = [Loader, AsyncLoader, Session, lazyimg.Image, lazyimg.Event, lazyimg.RequestResult,
                  lazyimg.FrameResult, lazyimg.Stats, lazyimg.LazyImgError, lazyimg.HTTPError]
PER_FRAME = ["request", "lookup", "set_visible_range", "set_scroll_state", "frame_at", "frame"]


def public_members(cls):
    for name in dir(cls):
        if name.startswith("_") and name not in ("__init__", "_repr_png_"):
            continue
        member = inspect.getattr_static(cls, name, None)
        if isinstance(member, (int, str, type)) or member is None:
            continue
        owner = next(klass for klass in cls.__mro__ if name in vars(klass))
        if owner in (object, BaseException, Exception, ValueError, IndexError, OSError, MemoryError):
            continue
        yield name, getattr(cls, name)


@pytest.mark.parametrize("cls", PUBLIC_CLASSES, ids=lambda cls: cls.__name__)
def test_every_public_method_and_property_has_a_docstring(cls):
    assert inspect.getdoc(cls), cls
    missing = [name for name, member in public_members(cls) if not (inspect.getdoc(member) or "").strip()]
    assert not missing, f"{cls.__name__}: no docstring on {missing}"


def test_every_module_function_has_a_docstring():
    missing = [name for name in lazyimg.__all__ if callable(getattr(lazyimg, name))
               and not isinstance(getattr(lazyimg, name), type) and not inspect.getdoc(getattr(lazyimg, name))]
    assert not missing


def test_async_loader_has_loaders_methods_as_its_own():
    loader_names = {name for name in dir(Loader) if not name.startswith("_")}
    assert loader_names <= set(dir(AsyncLoader))
    assert AsyncLoader.fetch is Loader.fetch and AsyncLoader.request is Loader.request
    assert inspect.iscoroutinefunction(AsyncLoader.image) and inspect.iscoroutinefunction(AsyncLoader.data)
    assert inspect.signature(AsyncLoader) == inspect.signature(Loader)


def test_async_loader_refuses_to_be_made_outside_a_loop():
    with pytest.raises(RuntimeError, match="running event loop"):
        AsyncLoader()


def test_wait_takes_keyword_seconds_and_refuses_the_old_milliseconds():
    with Loader() as loader:
        with pytest.raises(TypeError):
            loader.wait(5000)  # 0.3's milliseconds: would wait 83 minutes as seconds
        with pytest.raises(TypeError):
            loader.wait(timeout_ms=5)
        with pytest.raises(ValueError, match="timeout must be >= 0 seconds"):
            loader.wait(timeout=-1)
        with pytest.raises(TypeError, match="timeout must be a number of seconds"):
            loader.wait(timeout="1")
        assert loader.wait(timeout=0.01) is False
        assert loader.wait(timeout=0) is False


def test_stats_are_a_frozen_dataclass_with_every_counter():
    with Loader() as loader:
        stats = loader.get_stats()
    assert dataclasses.is_dataclass(stats) and isinstance(stats, lazyimg.Stats)
    assert [f.name for f in dataclasses.fields(stats)] == [name for name, _ in StatsStruct._fields_[1:]]
    assert stats.requests == 0 and "memory_hits=0" in repr(stats)
    with pytest.raises(dataclasses.FrozenInstanceError):
        stats.requests = 1


def test_the_versions_are_there():
    assert lazyimg.__version__ == "%d.%d.%d" % (lazyimg.constants.VERSION_MAJOR, lazyimg.constants.VERSION_MINOR,
                                               lazyimg.constants.VERSION_PATCH)
    assert lazyimg.version_number() >= lazyimg.constants.VERSION_NUMBER
    assert os.path.isfile(lazyimg.library_path)


def test_the_c_per_frame_calls_match_the_python_ones():
    """When the C extension is there, its methods read as _pure's do (the
    test run without it checks the Python ones behave)."""
    expected = os.environ.get("LAZYIMG_EXPECT_SPEEDUPS")
    if expected is not None:
        assert lazyimg.speedups == (expected == "1")
    if not lazyimg.speedups:
        pytest.skip("the C extension is not in use here")
    from lazyimg import _speedups
    for name in PER_FRAME:
        c_method, python_method = getattr(_speedups.LoaderBase, name), getattr(lazyimg._pure.LoaderBase, name)
        assert inspect.getdoc(c_method) == inspect.getdoc(python_method), name
        c_names = list(inspect.signature(c_method).parameters)
        assert c_names == list(inspect.signature(python_method).parameters), name
    for name in ("width", "height", "stride", "source_width", "source_height", "is_animated"):
        assert inspect.getdoc(getattr(_speedups.ImageBase, name)) == inspect.getdoc(
            getattr(lazyimg._pure.ImageBase, name)), name
    for name in ("RequestResult", "FrameResult"):
        c_type, python_type = getattr(_speedups, name), getattr(lazyimg._pure, name)
        assert inspect.getdoc(c_type) == inspect.getdoc(python_type), name
    for name in ("status", "image", "index", "next_ms"):
        assert inspect.getdoc(getattr(_speedups.FrameResult, name)) == inspect.getdoc(
            getattr(lazyimg._pure.FrameResult, name)), name


def test_an_awaited_image_of_a_closed_loader_raises_closed():
    async def main():
        loader = AsyncLoader()
        loader.close()
        with pytest.raises(lazyimg.ClosedError):
            await loader.image(0)

    asyncio.run(main())


def test_codes_newer_than_the_binding_pass_as_members_of_the_enum():
    status = lazyimg.Status(-99)
    assert status == -99 and status.name == "UNKNOWN_-99" and lazyimg.Status(-99) is status
    assert -99 not in [int(member) for member in lazyimg.Status]
    error = lazyimg.errors.error_for(-99)
    assert type(error) is lazyimg.LazyImgError and str(error).startswith("LAZYIMG_UNKNOWN_-99 (-99): ")
