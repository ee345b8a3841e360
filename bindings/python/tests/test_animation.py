"""Animations as Python plays them: Image.frame_count and its durations,
Loader.frame_at and frame with the frame due, and decoding that stops when
the row leaves the screen. Real GIF and WebP files (made by Pillow), the real
library, a loopback server."""
import time

import pytest

from lazyimg import FrameResult, Loader, NoImageError, OutOfRangeError, Status
from waiting import load

PIL = pytest.importorskip("PIL.Image")

COLOURS = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0), (0, 255, 255), (255, 0, 255),
           (128, 0, 0), (0, 128, 0), (0, 0, 128), (128, 128, 0), (0, 128, 128), (128, 0, 128)]
BOX = {"target_width": 20, "target_height": 20}
FRAME_BYTES = 20 * 15 * 4  # a 40 x 30 frame in the 20 x 20 box
TICK_S = 1 / 60  # a host's frame


def animation(kind, frames=6, duration_ms=100):
    """A 40 x 30 animation looping forever, frame n filled with COLOURS[n]:
    a frame is known by any of its pixels. WebP lossless, so exact."""
    import io

    pictures = [PIL.new("RGB", (40, 30), COLOURS[n]) for n in range(frames)]
    out = io.BytesIO()
    options = {"lossless": True} if kind == "webp" else {}
    pictures[0].save(out, format=kind.upper(), save_all=True, append_images=pictures[1:], duration=duration_ms,
                     loop=0, **options)
    return out.getvalue()


def colour(image):
    return tuple(image.memoryview()[0:3])


def frame_due(loader, row, time_ms):
    """frame_at until it answers OK. No event follows NOT_YET (by design: a
    host asks on each of its frames anyway), so this asks as a host's frame
    clock would, once a tick, for at most 30 s."""
    deadline = time.monotonic() + 30
    while True:
        result = loader.frame_at(row, time_ms)
        if result.status != Status.NOT_YET:
            return result
        assert time.monotonic() < deadline, f"frame for {time_ms} ms not decoded within 30 s"
        time.sleep(TICK_S)


@pytest.mark.parametrize("kind", ["gif", "webp"])
def test_an_animation_plays_the_frame_due_at_the_box_size(server, kind):
    server.files[f"/anim.{kind}"] = animation(kind)
    with Loader(animation_buffer_bytes=1 << 20, **BOX) as loader:
        loader.set_items([server.url(f"/anim.{kind}")])
        assert loader.frame_at(0, 0).status == Status.MISS, "not requested yet"
        first = load(loader, [0])[0].image
        assert first.is_animated and first.frame_count == 6 and first.loop_count == 0
        assert [first.frame_duration(n) for n in range(6)] == [100] * 6
        with pytest.raises(IndexError):
            first.frame_duration(6)

        # Forward, then back (the start again), then a later loop.
        for time_ms, index in [(0, 0), (150, 1), (420, 4), (599, 5), (250, 2), (600, 0), (1234, 0), (1999, 1)]:
            result = frame_due(loader, 0, time_ms)
            assert isinstance(result, FrameResult) and result.status == Status.OK, result
            assert result.index == index and result.next_ms == (time_ms // 100 + 1) * 100, (time_ms, result)
            assert result.image.size == (20, 15) and colour(result.image) == COLOURS[index], (time_ms, result)

        result = loader.frame(0, 3)
        while result.status == Status.NOT_YET:
            time.sleep(TICK_S)
            result = loader.frame(0, 3)
        assert result.index == 3 and result.next_ms is None and colour(result.image) == COLOURS[3]
        stats = loader.get_stats()
        assert stats.frames_decoded >= 5 and 0 < stats.animation_bytes <= stats.memory_cache_bytes


def test_frame_calls_check_their_arguments(server):
    server.files["/anim.gif"] = animation("gif")
    with Loader(animation_buffer_bytes=1 << 20, **BOX) as loader:
        loader.set_items([server.url("/anim.gif"), None])
        load(loader, [0])
        with pytest.raises(OutOfRangeError):
            loader.frame(0, 6)
        with pytest.raises(OutOfRangeError):
            loader.frame(0, 1 << 40)
        with pytest.raises(OutOfRangeError):
            loader.frame_at(2, 0)
        with pytest.raises(NoImageError):
            loader.frame_at(1, 0)
        with pytest.raises(ValueError, match="time_ms must not be negative"):
            loader.frame_at(0, -1)
        with pytest.raises(ValueError, match="time_ms is too large"):
            loader.frame_at(0, 1 << 64)
        with pytest.raises(TypeError, match="time_ms must be an int"):
            loader.frame_at(0, 1.5)
        with pytest.raises(TypeError, match="index must be an int"):
            loader.frame(0, "1")
        assert loader.frame_at(row=0, time_ms=0).index == 0


def test_a_still_image_and_a_loader_that_does_not_play_answer_the_first_frame(server):
    server.files["/anim.webp"] = animation("webp")
    for options, path in [({"animation_buffer_bytes": 1 << 20}, "/green.png"), ({}, "/anim.webp")]:
        with Loader(**options, **BOX) as loader:
            loader.set_items([server.url(path)])
            first = load(loader, [0])[0].image
            assert first.frame_count == 1 and first.frame_duration(0) == 0 and first.loop_count == 1
            result = loader.frame_at(0, 5000)
            assert result.status == Status.OK and result.index == 0 and result.next_ms is None
            assert result.image.tobytes() == first.tobytes()
            assert loader.get_stats().frames_decoded == 0


def test_a_row_that_leaves_the_screen_stops_decoding(server):
    server.files["/anim.gif"] = animation("gif", frames=12)
    window = 3  # frames the buffer holds
    with Loader(animation_buffer_bytes=window * FRAME_BYTES, **BOX) as loader:
        loader.set_items([server.url("/anim.gif")] + [None] * 9)
        loader.set_visible_range(0, 1)
        load(loader, [0])
        # Two loops on screen: every frame due comes (its buffer holds 3).
        for time_ms in range(0, 2400, 100):
            assert colour(frame_due(loader, 0, time_ms).image) == COLOURS[time_ms // 100 % 12]
        on_screen = loader.get_stats()
        assert on_screen.frames_decoded >= 20 and on_screen.animation_bytes > 0

        loader.set_visible_range(5, 1)
        # Two more loops asked for off screen, a host's tick apart: what was in
        # the buffer, then NOT_YET. A batch under way finishes (at most the
        # window); nothing more is decoded.
        answers = set()
        for time_ms in range(2400, 4800, 100):
            answers.add(loader.frame_at(0, time_ms).status)
            time.sleep(TICK_S)
        assert Status.NOT_YET in answers
        assert loader.get_stats().frames_decoded - on_screen.frames_decoded <= window

        loader.set_visible_range(0, 1)
        assert colour(frame_due(loader, 0, 4850).image) == COLOURS[0]
