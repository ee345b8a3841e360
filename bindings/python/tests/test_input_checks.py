"""Bad input is refused in Python, at once, by an error naming what is wrong;
failures are exception subclasses a caller can catch."""
import ctypes
import inspect

import pytest

import lazyimg
from lazyimg import Delivery, Fit, Loader, PixelFormat, Session, Status
from lazyimg._config import FIELDS
from lazyimg._library import lib
from lazyimg._structs import ConfigStruct
from waiting import events_for, load

LOADER_PARAMETERS = inspect.signature(Loader).parameters
INTEGER_FIELDS = [name for name in FIELDS if LOADER_PARAMETERS[name].annotation == "int"]


def library_defaults():
    cfg = ConfigStruct()
    lib.lazyimg_config_init(ctypes.byref(cfg))
    return cfg


@pytest.mark.parametrize("urls", ["http://127.0.0.1/a.png", b"http://127.0.0.1/a.png", 5, [5]])
def test_a_string_or_other_non_list_of_urls_is_a_type_error(urls):
    with Loader() as loader:
        for call in (loader.set_items, loader.append_items):
            with pytest.raises(TypeError, match="urls"):
                call(urls)
        assert len(loader) == 0


def test_a_nul_inside_a_url_or_text_is_refused_not_cut_short():
    with Loader() as loader:
        with pytest.raises(ValueError, match=r"urls\[1\] must not contain a NUL"):
            loader.set_items(["http://127.0.0.1/a.png", "http://127.0.0.1/b.png\0.jpg"])
        with pytest.raises(ValueError, match="url must not contain a NUL"):
            loader.fetch("http://127.0.0.1/feed\0.json")
    with pytest.raises(ValueError, match="user_agent"):
        Loader(user_agent="agent\0")


@pytest.mark.parametrize("name", INTEGER_FIELDS)
def test_a_negative_or_too_large_size_is_a_value_error_naming_the_field(name):
    low = -2 if name == "prefetch_rows" else -1
    for bad in (low, 1 << 64):
        with pytest.raises(ValueError, match=rf"^{name} must be between"):
            Loader(**{name: bad})
    with pytest.raises(TypeError, match=rf"^{name} must be an int, not str"):
        Loader(**{name: "12"})
    with pytest.raises(TypeError, match=rf"^{name} must be an int, not float"):
        Loader(**{name: 1.5})


def test_the_sizes_the_issue_named_wrap_no_more():
    with pytest.raises(ValueError, match="target_width must be between 0 and 4294967295, got -1"):
        Loader(target_width=-1)
    with pytest.raises(ValueError, match="memory_cache_bytes must be between 0 and 18446744073709551615, got -1"):
        Loader(memory_cache_bytes=-1)
    with pytest.raises(ValueError, match="max_concurrent_downloads must be between 0 and 64, got 65"):
        Loader(max_concurrent_downloads=65)


def test_a_non_callable_on_event_fails_at_once():
    with pytest.raises(TypeError, match="on_event must be callable"):
        Loader(on_event=5)


def test_enums_flags_rates_and_texts_are_checked_by_name():
    with pytest.raises(TypeError, match="pixel_format must be a lazyimg.PixelFormat, not <Fit.FILL: 1>"):
        Loader(pixel_format=Fit.FILL)
    with pytest.raises(ValueError, match="delivery must be a lazyimg.Delivery"):
        Loader(delivery=7)
    with pytest.raises(ValueError, match="disk_cache_serve_stale must be True or False, got 2"):
        Loader(disk_cache_serve_stale=2)
    with pytest.raises(ValueError, match="fetch_first_pass_only must be True or False, got 2"):
        Loader(fetch_first_pass_only=2)
    with pytest.raises(ValueError, match="slow_scroll_rows_per_second must be a finite number"):
        Loader(slow_scroll_rows_per_second=float("nan"))
    with pytest.raises(ValueError, match="proxy must not contain control characters"):
        Loader(proxy="http://proxy\n.example")
    with pytest.raises(TypeError, match="disk_cache_dir must be a path"):
        Loader(disk_cache_dir=5)
    with pytest.raises(TypeError, match="target_height must be an int, not NoneType"):
        Loader(target_height=None)


@pytest.mark.parametrize("line", ["Host: elsewhere", "X Test: yes", "X-Test", "X-Test: a\r\nInjected: b"])
def test_a_bad_header_line_is_refused_naming_it(line):
    with pytest.raises(ValueError, match=r"http_headers\[1\] must be 'Name: value'"):
        Loader(http_headers=["X-Fine: yes", line])


def test_the_per_frame_calls_check_their_arguments():
    with Loader() as loader:
        loader.set_items(["http://127.0.0.1/a.png"])
        with pytest.raises(ValueError, match="row must not be negative, got -1"):
            loader.request(-1)
        with pytest.raises(TypeError, match="row must be an int, not str"):
            loader.lookup("0")
        with pytest.raises(ValueError, match="count must not be negative"):
            loader.set_visible_range(0, -3)
        with pytest.raises(ValueError, match="state must be a ScrollState"):
            loader.set_scroll_state(3)
        with pytest.raises(ValueError, match="velocity_rows_per_second must be a number, got nan"):
            loader.set_scroll_state(lazyimg.ScrollState.DRAGGING, float("nan"))
        with pytest.raises(TypeError, match="velocity_rows_per_second must be a number, not str"):
            loader.set_scroll_state(lazyimg.ScrollState.DRAGGING, "fast")
        with pytest.raises(ValueError, match="ticket must be a ticket"):
            loader.cancel(-1)
        with pytest.raises(ValueError, match="level must be lazyimg.TRIM_MODERATE or lazyimg.TRIM_COMPLETE"):
            loader.trim_memory(9)
        loader.set_scroll_state(state=lazyimg.ScrollState.DRAGGING, velocity_rows_per_second=12)
        loader.set_visible_range(first=0, count=1)


def test_every_config_default_is_the_librarys():
    defaults = library_defaults()
    for name in FIELDS:
        default = LOADER_PARAMETERS[name].default
        value = getattr(defaults, name)
        if isinstance(value, float) or isinstance(value, int):
            assert default == value, name
        else:  # a pointer: NULL is None
            assert default is None and not value, name
    for name, parameter in inspect.signature(Session).parameters.items():
        assert parameter.default == getattr(defaults, name) or (parameter.default is None and not getattr(defaults, name)), name


def test_the_signature_names_every_config_field_and_nothing_else():
    struct_fields = {name for name, _ in ConfigStruct._fields_} - {"struct_size", "on_event", "user_data"}
    assert set(LOADER_PARAMETERS) == struct_fields | {"on_event"}
    assert all(p.kind == p.KEYWORD_ONLY for name, p in LOADER_PARAMETERS.items() if name != "on_event")
    assert set(FIELDS) == struct_fields - {"session"}


def test_failures_are_subclasses_with_their_details(server):
    with Loader(delivery=Delivery.HOST) as loader:
        loader.set_items([server.url("/missing.png"), "http://127.0.0.1:9/refused.png", server.url("/corrupt.png"),
                          server.url("/text.txt"), server.url("/x.png").replace("http:", "https:"),
                          "ftp://127.0.0.1/x.png"])
        events = load(loader, range(5))
        errors = [events[row].error() for row in range(5)]
        assert [type(error) for error in errors] == [lazyimg.HTTPError, lazyimg.NetworkError, lazyimg.DecodeError,
                                                     lazyimg.UnsupportedFormatError, lazyimg.TLSError]
        assert errors[0].http_status == 404 and events[0].http_status == 404
        assert isinstance(errors[4], lazyimg.NetworkError) and all(isinstance(e, lazyimg.LazyImgError) for e in errors)
        with pytest.raises(lazyimg.BadURLError) as bad_url:
            loader.request(5)
        assert isinstance(bad_url.value, ValueError)
        with pytest.raises(IndexError):
            loader.request(6)
        with pytest.raises(lazyimg.HTTPError):
            events[0].raise_for_status()


def test_a_cancelled_ticket_is_no_failure_and_says_cancelled_once(server):
    with Loader() as loader:
        loader.set_items([server.url("/slow/0.png")])
        ticket = loader.request(0).ticket
        assert loader.cancel(ticket)
        event = events_for(loader, [ticket])[ticket]
        assert event.cancelled and not event.ok
        error = event.error()
        assert isinstance(error, lazyimg.CancelledError) and str(error).count("cancelled") == 1, str(error)


def test_errors_say_which_call_refused_what_the_binding_could_not_check(tmp_path):
    not_a_directory = tmp_path / "file"
    not_a_directory.write_bytes(b"x")
    with pytest.raises(lazyimg.FileError) as raised:
        Loader(disk_cache_dir=not_a_directory)
    assert raised.value.status == Status.E_IO
    assert "lazyimg_loader_create refused the configuration" in str(raised.value)


def test_enum_members_pass_as_their_values():
    with Loader(pixel_format=PixelFormat.BGRA8_PREMULTIPLIED, fit=1, delivery=Delivery.THREAD) as loader:
        assert loader.fd == -1
