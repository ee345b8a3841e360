"""A GTK 4 list of remote thumbnails fed by lazyimg (PyGObject).

    python3 gtk_list.py URL...          a window with one row per URL
    python3 gtk_list.py --script URL... scrolls to the end by itself, waits
        for the rows on screen and prints the centre colour of the texture
        each visible row shows ("row 12 #ff0000"); runs under Xvfb
        (GSK_RENDERER=cairo)

What it shows:
- The loader's fd in GLib's main loop: GLib.unix_fd_add_full runs
  dispatch() while the fd is readable; each IMAGE event sets the texture of
  its row's Gtk.Picture, if the row is bound (on screen).
- Gdk.MemoryTexture: the loader decodes to BGRA8_PREMULTIPLIED, which is
  Gdk.MemoryFormat.B8G8R8A8_PREMULTIPLIED, GTK's own format: no conversion.
  GLib.Bytes copies the pixels once (PyGObject cannot lend it Python's
  memory); the texture then owns its copy and the lazyimg.Image can go.
- Scroll state: the vertical Gtk.Adjustment's value-changed gives the
  position (DRAGGING while it changes, IDLE after a rest, scroll_motion.py),
  and a kinetic Gtk.EventControllerScroll's "decelerate" signal gives the
  release velocity of a fling (DECELERATING).
"""
from __future__ import annotations

import sys

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Gdk", "4.0")
gi.require_version("GdkPixbuf", "2.0")
gi.require_version("Pango", "1.0")
from gi.repository import Gdk, GdkPixbuf, GLib, Gtk, Pango  # noqa: E402

import lazyimg  # noqa: E402
from scroll_motion import REST_SECONDS, ScrollMotion  # noqa: E402

ROW_HEIGHT = 40
THUMBNAIL = 32
GREY = bytes((128, 128, 128, 255))


def texture_of(image: lazyimg.Image) -> Gdk.Texture:
    """A texture of the image's pixels (one copy, into GLib.Bytes)."""
    assert image.pixel_format == lazyimg.PixelFormat.BGRA8_PREMULTIPLIED
    return Gdk.MemoryTexture.new(image.width, image.height, Gdk.MemoryFormat.B8G8R8A8_PREMULTIPLIED,
                                 GLib.Bytes.new(image.tobytes()), image.stride)


PLACEHOLDER = Gdk.MemoryTexture.new(THUMBNAIL, THUMBNAIL, Gdk.MemoryFormat.B8G8R8A8_PREMULTIPLIED,
                                    GLib.Bytes.new(GREY * THUMBNAIL * THUMBNAIL), 4 * THUMBNAIL)


class ListWindow:
    """A window with a Gtk.ListView of the URLs; the loader is told which
    rows are on screen and how the list scrolls."""

    def __init__(self, loader: lazyimg.Loader, urls: list[str]) -> None:
        self.loader = loader
        loader.set_items(urls)
        self.pictures: dict[int, Gtk.Picture] = {}  # bound rows: on screen
        factory = Gtk.SignalListItemFactory()
        factory.connect("setup", self.setup)
        factory.connect("bind", self.bind)
        factory.connect("unbind", self.unbind)
        self.view = Gtk.ListView.new(Gtk.NoSelection.new(Gtk.StringList.new(urls)), factory)
        self.scrolled = Gtk.ScrolledWindow(child=self.view)
        self.window = Gtk.Window(title="lazyimg", default_width=320, default_height=8 * ROW_HEIGHT,
                                 child=self.scrolled)
        self.motion = ScrollMotion(loader)
        self.rest_source = 0
        self.adjustment = self.scrolled.get_vadjustment()
        self.adjustment.connect("value-changed", self.scrolled_to)
        flings = Gtk.EventControllerScroll.new(Gtk.EventControllerScrollFlags.VERTICAL
                                               | Gtk.EventControllerScrollFlags.KINETIC)
        flings.connect("decelerate", self.decelerate)
        self.view.add_controller(flings)
        self.fd_source = GLib.unix_fd_add_full(GLib.PRIORITY_DEFAULT, loader.fd, GLib.IOCondition.IN, self.dispatch)
        loader.set_visible_range(0, 8)

    def setup(self, factory: Gtk.SignalListItemFactory, item: Gtk.ListItem) -> None:
        picture = Gtk.Picture(can_shrink=False, width_request=THUMBNAIL, height_request=THUMBNAIL)
        label = Gtk.Label(xalign=0.0, ellipsize=Pango.EllipsizeMode.END)
        row = Gtk.Box(spacing=8, height_request=ROW_HEIGHT, margin_start=4)
        row.append(picture)
        row.append(label)
        item.set_child(row)

    def bind(self, factory: Gtk.SignalListItemFactory, item: Gtk.ListItem) -> None:
        row, child = item.get_position(), item.get_child()
        assert isinstance(child, Gtk.Box)
        picture, label = child.get_first_child(), child.get_last_child()
        assert isinstance(picture, Gtk.Picture) and isinstance(label, Gtk.Label)
        string = item.get_item()
        assert isinstance(string, Gtk.StringObject)
        label.set_text(string.get_string())
        self.pictures[row] = picture
        picture.set_paintable(PLACEHOLDER)
        self.show(row)

    def show(self, row: int) -> None:
        """The row's image if in memory; else it is on its way (or deferred
        while the list flies) and its event sets it."""
        image = self.loader.request(row).image
        if image is not None:
            self.pictures[row].set_paintable(texture_of(image))

    def unbind(self, factory: Gtk.SignalListItemFactory, item: Gtk.ListItem) -> None:
        self.pictures.pop(item.get_position(), None)

    def dispatch(self, fd: int, condition: GLib.IOCondition) -> bool:
        for event in self.loader.dispatch():
            picture = self.pictures.get(event.row)
            if event.image is not None and picture is not None:
                picture.set_paintable(texture_of(event.image))
        return GLib.SOURCE_CONTINUE

    def row_height(self) -> float:
        """What a row takes on screen, once GTK has laid the list out."""
        count, upper = self.loader.item_count(), self.adjustment.get_upper()
        return upper / count if count and upper > 0 else ROW_HEIGHT

    def visible_rows(self) -> range:
        height = self.row_height()
        first = int(self.adjustment.get_value() // height)
        last = int((self.adjustment.get_value() + self.adjustment.get_page_size() - 1) // height)
        return range(first, min(last + 1, self.loader.item_count()))

    def refresh_visible(self) -> None:
        """Asks again for visible rows still showing the placeholder: GTK
        keeps rows bound off screen, and their tickets were cancelled when
        they left the visible range."""
        for row in self.visible_rows():
            picture = self.pictures.get(row)
            if picture is not None and picture.get_paintable() is PLACEHOLDER:
                self.show(row)

    def scrolled_to(self, adjustment: Gtk.Adjustment) -> None:
        rows = self.visible_rows()
        self.loader.set_visible_range(rows.start, len(rows))
        self.motion.moved(adjustment.get_value() / self.row_height())
        self.refresh_visible()
        if self.rest_source:
            GLib.source_remove(self.rest_source)
        self.rest_source = GLib.timeout_add(int(REST_SECONDS * 1000), self.rested)

    def decelerate(self, controller: Gtk.EventControllerScroll, velocity_x: float, velocity_y: float) -> None:
        self.motion.moved(self.adjustment.get_value() / self.row_height(), lazyimg.ScrollState.DECELERATING)

    def rested(self) -> bool:
        self.rest_source = 0
        self.motion.rested()
        self.refresh_visible()
        return GLib.SOURCE_REMOVE

    def shows_every_visible_row(self) -> bool:
        rows = self.visible_rows()
        return not self.motion.moving and all(
            row in self.pictures and self.pictures[row].get_paintable() is not PLACEHOLDER for row in rows)

    def colour_shown(self, row: int) -> str:
        """The centre pixel of the texture the row's picture shows, read back
        from GTK (as PNG bytes, decoded by GdkPixbuf)."""
        texture = self.pictures[row].get_paintable()
        assert isinstance(texture, Gdk.Texture)
        loader = GdkPixbuf.PixbufLoader.new_with_type("png")
        loader.write_bytes(texture.save_to_png_bytes())
        loader.close()
        pixbuf = loader.get_pixbuf()
        assert pixbuf is not None
        x, y = pixbuf.get_width() // 2, pixbuf.get_height() // 2
        at = y * pixbuf.get_rowstride() + x * pixbuf.get_n_channels()
        return "#" + bytes(pixbuf.get_pixels()[at:at + 3]).hex()


def script(list_window: ListWindow, loop: GLib.MainLoop) -> list[int]:
    """Flings to the end in 16 ms steps, waits for the visible rows once at
    rest, then reports what they show. Returns [the exit status], set when
    the loop ends."""
    adjustment = list_window.adjustment
    outcome = [1]

    def step() -> bool:
        if adjustment.get_page_size() <= 0:
            # Not laid out yet (a busy machine can be slower than the first
            # step): no rows on screen, which would "all show" vacuously.
            return GLib.SOURCE_CONTINUE
        end = adjustment.get_upper() - adjustment.get_page_size()
        if adjustment.get_value() < end:
            adjustment.set_value(min(adjustment.get_value() + 3 * ROW_HEIGHT, end))
            return GLib.SOURCE_CONTINUE
        if not list_window.shows_every_visible_row():
            return GLib.SOURCE_CONTINUE
        for row in list_window.visible_rows():
            print(f"row {row} {list_window.colour_shown(row)}")
        outcome[0] = 0
        loop.quit()
        return GLib.SOURCE_REMOVE

    GLib.timeout_add(16, step)
    GLib.timeout_add(30000, loop.quit)
    return outcome


def main(argv: list[str]) -> int:
    scripted = argv[:1] == ["--script"]
    argv = argv[1:] if scripted else argv
    loop = GLib.MainLoop()
    with lazyimg.Loader(target_width=THUMBNAIL, target_height=THUMBNAIL,
                        pixel_format=lazyimg.PixelFormat.BGRA8_PREMULTIPLIED) as loader:
        list_window = ListWindow(loader, argv)
        list_window.window.connect("close-request", lambda window: loop.quit())
        list_window.window.present()
        outcome = script(list_window, loop) if scripted else [0]
        loop.run()  # type: ignore[no-untyped-call]  # (untyped in pygobject-stubs 2.11)
        GLib.source_remove(list_window.fd_source)
        return outcome[0]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
