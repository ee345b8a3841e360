"""The Loader against a loopback server: events, errors, config, images, lifetime."""
import ctypes
import gc
import threading

import pytest

import lazyimg
from lazyimg import Delivery, EventType, Fit, LazyImgError, Loader, Output, PixelFormat, Status
from lazyimg._library import lib
from conftest import GREEN, HALF_BLUE, RED
from waiting import WAIT_S, load


def test_version_is_the_headers():
    assert lazyimg.version_number() == lazyimg.constants.VERSION_NUMBER
    assert lazyimg.version() == "%d.%d.%d" % (lazyimg.constants.VERSION_MAJOR,
                                             lazyimg.constants.VERSION_MINOR,
                                             lazyimg.constants.VERSION_PATCH)


def test_dispatch_returns_events_as_objects(server):
    with Loader() as loader:
        loader.set_items([server.url("/red.png"), server.url("/missing.png"), None])
        assert len(loader) == 3
        events = load(loader, [0, 1])
        red, missing = events[0], events[1]
        assert red.type == EventType.IMAGE and red.ok and red.status == Status.OK
        assert red.url == server.url("/red.png") and red.message == ""
        assert red.image.size == (40, 20) and red.image.source_width == 40
        assert bytes(red.image.memoryview()[:4]) == bytes(RED)
        assert missing.type == EventType.FAILED and missing.image is None
        assert missing.status == Status.E_HTTP and missing.http_status == 404
        with pytest.raises(LazyImgError) as raised:
            missing.raise_for_status()
        error = raised.value
        assert error.status == Status.E_HTTP and "404" in error.message
        assert error.strerror == lazyimg.strerror(Status.E_HTTP) and error.row == 1
        assert error.strerror in str(error) and error.message in str(error)
        # The second ask is a memory hit: OK with the image at once.
        hit = loader.request(0)
        assert hit.status == Status.OK and hit.image.size == (40, 20) and hit.ticket == 0


def test_failures_carry_the_events_message(server):
    with Loader() as loader:
        loader.set_items([server.url("/corrupt.png"), server.url("/text.txt")])
        events = load(loader, [0, 1])
        assert events[0].status == Status.E_DECODE and events[0].message
        assert events[1].status == Status.E_UNSUPPORTED and events[1].message


def test_negative_statuses_raise_with_strerror(server):
    with Loader() as loader:
        loader.set_items([server.url("/red.png"), None, "ftp://example.invalid/x.png"])
        with pytest.raises(LazyImgError) as raised:
            loader.request(3)
        assert raised.value.status == Status.E_OUT_OF_RANGE
        assert raised.value.strerror == lib.lazyimg_strerror(-2).decode()
        with pytest.raises(LazyImgError) as raised:
            loader.request(1)
        assert raised.value.status == Status.E_NO_IMAGE
        with pytest.raises(LazyImgError) as raised:
            loader.request(2)
        assert raised.value.status == Status.E_BAD_URL
        with pytest.raises(ValueError, match="state must be a ScrollState"):
            loader.set_scroll_state(7)


def test_callback_gets_every_event_and_stays_alive(server):
    seen = []
    # Nothing but the loader refers to this function once the loader exists.
    loader = Loader(on_event=lambda event: seen.append((event.row, event.image.size)))
    gc.collect()
    try:
        loader.set_items([server.url("/green.png"), server.url("/blue.png")])
        events = load(loader, [0, 1])
        assert sorted(seen) == [(0, (16, 16)), (1, (10, 10))]
        assert sorted(events) == [0, 1]
    finally:
        loader.close()


def test_callback_exceptions_are_reraised_from_dispatch(server):
    def on_event(event):
        raise KeyError(f"row {event.row}")

    with Loader(on_event=on_event) as loader:
        loader.set_items([server.url("/green.png"), server.url("/blue.png")])
        tickets = [loader.request(0).ticket, loader.request(1).ticket]
        raised = []
        while len(raised) < len(tickets):
            assert loader.wait(timeout=WAIT_S)
            with pytest.raises(KeyError) as error:
                loader.dispatch(1)
            raised.append(str(error.value))
        assert sorted(raised) == ["'row 0'", "'row 1'"]


def test_config_fields_reach_the_library(server):
    options = dict(target_width=8, target_height=6, fit=Fit.FILL,
                   pixel_format=PixelFormat.BGRA8_PREMULTIPLIED,
                   user_agent="binding-test/1", http_headers=["X-Test: yes"])
    with Loader(**options) as loader:
        loader.set_items([server.url("/red.png"), server.url("/blue.png")])
        events = load(loader, [0, 1])
        red, blue = events[0].image, events[1].image
        assert red.size == (8, 6) and red.pixel_format == PixelFormat.BGRA8_PREMULTIPLIED
        assert bytes(red.memoryview()[:4]) == bytes((0, 0, 255, 255))
        assert bytes(blue.memoryview()[:4]) == bytes((128, 0, 0, 128))  # premultiplied
    sent = server.headers[0]
    assert sent["User-Agent"] == "binding-test/1" and sent["X-Test"] == "yes"


def test_encoded_output_hands_out_the_files_bytes(server):
    with Loader(output=Output.ENCODED) as loader:
        loader.set_items([server.url("/green.png")])
        image = load(loader, [0])[0].image
        assert image.is_encoded and image.codec == lazyimg.Codec.PNG
        assert image.tobytes() == server.files["/green.png"]


def test_unknown_config_field_is_a_type_error():
    with pytest.raises(TypeError, match="target_widht"):
        Loader(target_widht=8)


def test_image_buffer_is_the_librarys_memory_and_outlives_the_loader(server):
    with Loader() as loader:
        loader.set_items([server.url("/green.png")])
        image = load(loader, [0])[0].image
    view = image.memoryview()
    assert view.readonly and view.nbytes == image.stride * image.height
    assert view.format == "B" and view[1] == 255 and list(view[:4]) == list(GREEN)  # indexable bytes
    address = ctypes.addressof(view.obj)
    assert address == lib.lazyimg_image_pixels(image._pointer)  # no copy
    del image
    gc.collect()
    assert bytes(view[:4]) == bytes(GREEN) and bytes(view[-4:]) == bytes(GREEN)


def test_numpy_views_the_pixels_without_a_copy(server):
    numpy = pytest.importorskip("numpy")
    with Loader() as loader:
        loader.set_items([server.url("/blue.png")])
        image = load(loader, [0])[0].image
    array = numpy.asarray(image)
    assert array.shape == (10, 10, 4) and tuple(array[9, 9]) == HALF_BLUE
    assert array.ctypes.data == lib.lazyimg_image_pixels(image._pointer)


def test_pillow_reads_the_pixels_through_the_buffer(server):
    pil = pytest.importorskip("PIL.Image")
    with Loader() as loader:
        loader.set_items([server.url("/red.png")])
        image = load(loader, [0])[0].image
    picture = pil.frombuffer("RGBA", image.size, image.memoryview(), "raw", "RGBA", image.stride, 1)
    assert picture.size == (40, 20) and picture.getpixel((39, 19)) == RED
    # frombuffer shares the memory: the picture keeps the view, the view the image.
    del image
    gc.collect()
    assert picture.getpixel((0, 0)) == RED


def test_close_inside_a_callback_is_misuse_and_leaves_the_loader_open(server):
    holder = {}

    def on_event(event):
        holder["loader"].close()

    with Loader(on_event=on_event) as loader:
        holder["loader"] = loader
        loader.set_items([server.url("/green.png")])
        loader.request(0)
        assert loader.wait(timeout=WAIT_S)
        with pytest.raises(LazyImgError) as raised:
            loader.dispatch()
        assert raised.value.status == Status.E_MISUSE
        assert not loader.closed and len(loader) == 1
    assert loader.closed


def test_close_with_downloads_in_flight_delivers_cancelled_through_the_callback(server):
    seen = []
    loader = Loader(on_event=seen.append)
    loader.set_items([server.url(f"/slow/{n}.png") for n in range(4)])
    tickets = {loader.request(row).ticket for row in range(4)}
    loader.close()  # HOST delivery: the events run here, on this thread
    assert {event.ticket for event in seen} == tickets
    assert all(event.status == Status.E_CANCELLED for event in seen)


def test_thread_delivery_close_while_callbacks_need_the_gil(server):
    """THREAD delivery: callbacks take the GIL on the library's thread while
    close() waits for that thread; close must not hold the GIL meanwhile."""
    threads = set()
    seen = []

    def on_event(event):
        threads.add(threading.get_ident())
        seen.append(event.status)

    loader = Loader(on_event=on_event, delivery=Delivery.THREAD)
    assert loader.dispatch() == []
    loader.set_items([server.url("/green.png")] + [server.url(f"/slow/{n}.png") for n in range(6)])
    for row in range(7):
        loader.request(row)
    closer = threading.Thread(target=loader.close)
    closer.start()
    closer.join(WAIT_S)
    assert not closer.is_alive(), "close() deadlocked"
    assert len(seen) == 7 and Status.E_CANCELLED in seen
    assert threads and threading.get_ident() not in threads


def test_wait_in_thread_delivery_is_misuse():
    with Loader(delivery=Delivery.THREAD) as loader:
        assert loader.fd == -1
        with pytest.raises(LazyImgError) as raised:
            loader.wait(timeout=0)
        assert raised.value.status == Status.E_MISUSE


def test_lookup_append_cancel_stats_and_trim(server):
    with Loader() as loader:
        loader.set_items([server.url("/green.png")])
        loader.append_items([server.url("/slow/7.png")])
        assert len(loader) == 2 and loader.lookup(0) is None
        load(loader, [0])
        assert loader.lookup(0).size == (16, 16)
        assert loader.lookup_url(server.url("/green.png")).size == (16, 16)
        ticket = loader.request(1).ticket
        assert loader.cancel(ticket) is True and loader.cancel(ticket) is False
        stats = loader.get_stats()
        assert stats.requests == 2 and stats.memory_cache_count == 1
        loader.trim_memory(lazyimg.TRIM_COMPLETE)
        assert loader.lookup(0) is None


def test_closed_loader_refuses_calls():
    loader = Loader()
    loader.close()
    loader.close()
    with pytest.raises(ValueError, match="closed"):
        loader.request(0)
