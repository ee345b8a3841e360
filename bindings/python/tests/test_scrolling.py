"""Scrolling from Python: set_scroll_target and slow_scroll_rows_per_second
decide what a request answers while the list moves."""
import time

import pytest

from lazyimg import LazyImgError, Loader, ScrollState, Status
from waiting import events_until

ROWS = 100


def rows(server):
    # Distinct URLs, so no row shares another's download.
    return [server.url(f"/row/{n}.png") for n in range(ROWS)]


def test_scroll_target_rows_start_while_the_list_flies(server):
    with Loader() as loader:
        # Held by the server until the test ends: no download finishes (a 404
        # would be remembered), so every answer below is the policy's.
        loader.set_items([server.url(f"/slow/row/{n}.png") for n in range(ROWS)])
        loader.set_scroll_state(ScrollState.DECELERATING, 500.0)
        loader.set_visible_range(0, 5)
        assert loader.request(30).status == Status.DEFERRED
        loader.set_scroll_target(60, 5)
        assert loader.request(61).status == Status.DEFERRED  # where, but not yet when
        # Frames paced at 60 Hz as a UI's are, braking hard: the loader's clock
        # times the decay, and the rest is soon.
        for speed in (300.0, 180.0, 110.0, 65.0):
            time.sleep(0.016)
            loader.set_scroll_state(ScrollState.DECELERATING, speed)
        resting = loader.request(61)
        assert resting.status == Status.PENDING  # where the list will rest
        assert loader.request(31).status == Status.DEFERRED  # passed over on the way
        loader.set_scroll_target(0, 0)  # withdrawn
        # The scheduler takes the withdrawal a moment later: row 61 leaves the
        # landing zone, and its download and ticket end.
        [ended] = [event for event in events_until(loader, resting.ticket) if event.ticket == resting.ticket]
        assert ended.cancelled
        assert loader.request(62).status == Status.DEFERRED


def test_scroll_target_validates_its_arguments():
    loader = Loader()
    loader.set_scroll_target(10**6, 10)  # clamped to the list, as in C
    with pytest.raises(ValueError, match="first"):
        loader.set_scroll_target(-1, 5)
    with pytest.raises(ValueError, match="count"):
        loader.set_scroll_target(0, -5)
    with pytest.raises(TypeError):
        loader.set_scroll_target(1.5, 5)
    with pytest.raises(ValueError, match="first"):
        loader.set_visible_range(-1, 5)
    loader.close()
    with pytest.raises(ValueError, match="closed"):
        loader.set_scroll_target(0, 5)


@pytest.mark.parametrize("slow_scroll, answer", [(None, Status.DEFERRED), (1000.0, Status.PENDING)])
def test_slow_scroll_rows_per_second_sets_the_speed_that_loads_as_at_rest(server, slow_scroll, answer):
    options = {} if slow_scroll is None else {"slow_scroll_rows_per_second": slow_scroll}
    with Loader(**options) as loader:
        loader.set_items(rows(server))
        # 500 rows/s: fast against the default (one 5-row screen a second),
        # slow against 1000. Moving before the first visible range, so nothing
        # started at rest.
        loader.set_scroll_state(ScrollState.DRAGGING, 500.0)
        loader.set_visible_range(0, 5)
        assert loader.request(2).status == answer


def test_a_negative_slow_scroll_speed_is_refused():
    with pytest.raises(ValueError, match="slow_scroll_rows_per_second must be a finite number >= 0, got -1.0"):
        Loader(slow_scroll_rows_per_second=-1.0)
