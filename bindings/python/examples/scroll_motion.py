"""What the recipes tell lazyimg about scrolling, from what a toolkit shows:
a list's scroll position over time.

Toolkits report where a list is, not whether a finger or momentum moves it,
so this infers the state: DRAGGING (with the speed of the last two
positions) while the position changes, IDLE once it has rested for
REST_SECONDS. A toolkit that says more (GTK's kinetic "decelerate" signal,
Qt's QScroller) can pass DECELERATING instead.
"""
from __future__ import annotations

import time

import lazyimg

REST_SECONDS = 0.15


class ScrollMotion:
    """Turns positions (in rows) into lazyimg's scroll state and speed."""

    def __init__(self, loader: lazyimg.Loader) -> None:
        self.loader = loader
        self.position = 0.0
        self.when = time.monotonic()
        self.moving = False

    def moved(self, position_rows: float, state: lazyimg.ScrollState = lazyimg.ScrollState.DRAGGING) -> None:
        """The list is at `position_rows` now: tells the loader it moves."""
        now = time.monotonic()
        velocity = (position_rows - self.position) / max(now - self.when, 1e-3)
        self.position, self.when, self.moving = position_rows, now, True
        self.loader.set_scroll_state(state, velocity)

    def rested(self) -> None:
        """No move for REST_SECONDS: the list is at rest."""
        if self.moving:
            self.moving = False
            self.loader.set_scroll_state(lazyimg.ScrollState.IDLE, 0.0)
