"""A terminal list of remote thumbnails fed by lazyimg, in Textual.

    python3 textual_list.py URL...

Each row shows its image as 8 x 4 half-block characters (one pixel above
the other in each cell) beside its URL.

What it shows:
- AsyncLoader in Textual's own asyncio loop: made in on_mount, its fd read
  by the loop; each row on screen awaits loader.image(row) in a worker.
- A row that scrolls away is cancelled by the loader's scroll policy: its
  worker's await raises asyncio.CancelledError, and the worker ends quietly.
- Scroll state: Textual reports the container's scroll_y; scroll_motion.py
  infers DRAGGING from its changes and IDLE after a rest.
tests/test_recipes.py drives it with Textual's headless test pilot.
"""
from __future__ import annotations

import asyncio
import sys

from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.timer import Timer
from textual.widgets import Label, Static

import lazyimg
from lazyimg.aio import AsyncLoader
from scroll_motion import REST_SECONDS, ScrollMotion

COLUMNS, LINES = 8, 4  # a row: 8 x 8 pixels as 8 x 4 characters


def half_blocks(image: lazyimg.Image) -> Text:
    """The image as text: "▀" with the upper pixel as its colour and the
    lower one as its background."""
    pixels, stride = image.memoryview(), image.stride
    text = Text()
    for y in range(0, image.height, 2):
        for x in range(image.width):
            top = pixels[y * stride + 4 * x:y * stride + 4 * x + 3]
            low = pixels[(y + 1) * stride + 4 * x:(y + 1) * stride + 4 * x + 3] if y + 1 < image.height else top
            text.append("▀", Style(color=f"rgb({top[0]},{top[1]},{top[2]})",
                                   bgcolor=f"rgb({low[0]},{low[1]},{low[2]})"))
        text.append("\n")
    return text


class Thumbnail(Static):
    """One row's picture; `colour` is its centre pixel once shown."""

    DEFAULT_CSS = f"Thumbnail {{ width: {COLUMNS}; height: {LINES}; background: $panel; }}"
    colour: str | None = None

    def show(self, image: lazyimg.Image) -> None:
        pixels = image.memoryview()
        at = (image.height // 2) * image.stride + 4 * (image.width // 2)
        self.colour = "#" + bytes(pixels[at:at + 3]).hex()
        self.update(half_blocks(image))


class ThumbnailList(App[None]):
    """The list; `shown` is set whenever every row on screen shows its image."""

    CSS = f"Horizontal {{ height: {LINES}; }} Label {{ padding: 1 2; }}"

    def __init__(self, urls: list[str]) -> None:
        super().__init__()
        self.urls = urls
        self.shown = asyncio.Event()
        self.rest: Timer | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            for row, url in enumerate(self.urls):
                yield Horizontal(Thumbnail(id=f"row{row}"), Label(url))

    async def on_mount(self) -> None:
        self.loader = AsyncLoader(target_width=COLUMNS, target_height=2 * LINES)
        self.loader.set_items(self.urls)
        self.motion = ScrollMotion(self.loader)
        scroller = self.query_one(VerticalScroll)
        self.watch(scroller, "scroll_y", self.scrolled, init=False)
        self.call_after_refresh(self.refresh_visible)

    def on_unmount(self) -> None:
        self.loader.close()

    def visible_rows(self) -> range:
        scroller = self.query_one(VerticalScroll)
        first = int(scroller.scroll_y) // LINES
        last = (int(scroller.scroll_y) + scroller.size.height - 1) // LINES
        return range(first, min(last + 1, len(self.urls)))

    def scrolled(self, scroll_y: float) -> None:
        rows = self.visible_rows()
        self.loader.set_visible_range(rows.start, len(rows))
        self.motion.moved(scroll_y / LINES)
        if self.rest is not None:
            self.rest.stop()
        self.rest = self.set_timer(REST_SECONDS, self.rested)
        self.refresh_visible()

    def rested(self) -> None:
        self.motion.rested()
        self.refresh_visible()

    def refresh_visible(self) -> None:
        """Starts a worker for each visible row not shown yet."""
        rows = self.visible_rows()
        self.loader.set_visible_range(rows.start, len(rows))
        self.shown.clear()
        for row in rows:
            if self.query_one(f"#row{row}", Thumbnail).colour is None:
                self.run_worker(self.show(row), group=f"row{row}", exclusive=True)
        self.check_shown()

    async def show(self, row: int) -> None:
        try:
            image = await self.loader.image(row)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # the worker itself was cancelled
            return  # the row left the screen: asked again when it comes back
        except lazyimg.LazyImgError as error:
            self.query_one(f"#row{row}", Thumbnail).update(error.status.name)
            return
        self.query_one(f"#row{row}", Thumbnail).show(image)
        self.check_shown()

    def check_shown(self) -> None:
        if not self.motion.moving and all(self.query_one(f"#row{row}", Thumbnail).colour
                                          for row in self.visible_rows()):
            self.shown.set()


if __name__ == "__main__":
    ThumbnailList(sys.argv[1:]).run()
