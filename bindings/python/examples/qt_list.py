"""A Qt list of remote thumbnails fed by lazyimg (PyQt6).

    python3 qt_list.py URL...                   a window with one row per URL
    python3 qt_list.py --script SHOT.png URL... scrolls to the end by itself,
        waits for the rows on screen, saves the list as SHOT.png and prints
        each visible row's thumbnail colour ("row 12 #ff0000"); works
        offscreen (QT_QPA_PLATFORM=offscreen)

What it shows:
- The loader's fd in Qt's event loop: a QSocketNotifier (Read) runs
  dispatch(), and each IMAGE event repaints its row (dataChanged).
- The pixel format: the loader decodes to BGRA8_PREMULTIPLIED, which is
  QImage.Format_ARGB32_Premultiplied on little-endian machines, the format
  Qt paints fastest: no conversion, no copy.
- QImage's lifetime: QImage(buffer, ...) wraps the pixels without copying and
  without owning them, so the lazyimg.Image must outlive it. Here both live
  only inside paint(): each paint asks request(row), a memory hit, which is
  cheaper than keeping QPixmaps (QPixmap.fromImage would copy).
- Scroll state: Qt reports the scroll bar's value; scroll_motion.py infers
  DRAGGING from its changes and IDLE after a rest.
"""
from __future__ import annotations

import sys

from PyQt6 import sip
from PyQt6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, QPoint, QRect, QSize, \
    QSocketNotifier, Qt, QTimer
from PyQt6.QtGui import QColor, QImage, QPainter
from PyQt6.QtWidgets import QApplication, QListView, QStyledItemDelegate, QStyleOptionViewItem

import lazyimg
from scroll_motion import REST_SECONDS, ScrollMotion

ROW_HEIGHT = 40
THUMBNAIL = 32
PLACEHOLDER = QColor(128, 128, 128)
ModelIndex = QModelIndex | QPersistentModelIndex


def qimage_of(image: lazyimg.Image) -> QImage:
    """A QImage over the image's pixels, without a copy: valid only while
    `image` lives."""
    assert image.pixel_format == lazyimg.PixelFormat.BGRA8_PREMULTIPLIED
    # PyQt takes any buffer here; its stubs name only bytes, which would be a copy.
    picture: QImage = QImage(image.memoryview(), image.width, image.height, image.stride,  # type: ignore[call-overload]
                             QImage.Format.Format_ARGB32_Premultiplied)
    return picture


class Thumbnails(QAbstractListModel):
    """The list: one row per URL, its thumbnail from the loader."""

    def __init__(self, loader: lazyimg.Loader, urls: list[str]) -> None:
        super().__init__()
        self.loader, self.urls = loader, urls
        loader.set_items(urls)
        self.notifier = QSocketNotifier(sip.voidptr(loader.fd), QSocketNotifier.Type.Read)  # a qintptr
        self.notifier.activated.connect(self.dispatch)

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.urls)

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        return self.urls[index.row()] if role == Qt.ItemDataRole.DisplayRole else None

    def thumbnail(self, row: int) -> lazyimg.Image | None:
        """The row's image if in memory; else it is on its way (or deferred
        while the list flies) and its event repaints the row."""
        return self.loader.request(row).image

    def dispatch(self) -> None:
        for event in self.loader.dispatch():
            if event.image is not None:
                index = self.index(event.row)
                self.dataChanged.emit(index, index)


class ThumbnailDelegate(QStyledItemDelegate):
    """Paints a row: its thumbnail (or a grey placeholder) and its URL."""

    def __init__(self, model: Thumbnails) -> None:
        super().__init__()
        self.model = model

    def sizeHint(self, option: QStyleOptionViewItem, index: ModelIndex) -> QSize:
        return QSize(200, ROW_HEIGHT)

    def paint(self, painter: QPainter | None, option: QStyleOptionViewItem, index: ModelIndex) -> None:
        assert painter is not None
        top_left = option.rect.topLeft()
        box = QRect(top_left.x() + 4, top_left.y() + 4, THUMBNAIL, THUMBNAIL)
        image = self.model.thumbnail(index.row())
        if image is None:
            painter.fillRect(box, PLACEHOLDER)
        else:
            picture = qimage_of(image)  # `image` outlives it: both end with this call
            x = box.x() + (THUMBNAIL - image.width) // 2
            y = box.y() + (THUMBNAIL - image.height) // 2
            painter.drawImage(QPoint(x, y), picture)
        painter.drawText(option.rect.adjusted(THUMBNAIL + 12, 0, 0, 0), Qt.AlignmentFlag.AlignVCenter,
                         str(index.data()))


class ListWindow(QListView):
    """The view: tells the loader which rows are on screen and how it scrolls."""

    def __init__(self, loader: lazyimg.Loader, urls: list[str]) -> None:
        super().__init__()
        self.loader = loader
        self.thumbnails = Thumbnails(loader, urls)
        self.setModel(self.thumbnails)
        self.setItemDelegate(ThumbnailDelegate(self.thumbnails))
        self.setUniformItemSizes(True)
        self.resize(320, 8 * ROW_HEIGHT)
        self.motion = ScrollMotion(loader)
        self.rest = QTimer(self)
        self.rest.setSingleShot(True)
        self.rest.setInterval(int(REST_SECONDS * 1000))
        self.rest.timeout.connect(self.motion.rested)
        scroll_bar = self.verticalScrollBar()
        assert scroll_bar is not None
        scroll_bar.valueChanged.connect(self.scrolled)

    def visible_rows(self) -> range:
        viewport = self.viewport()
        assert viewport is not None
        first = self.indexAt(QPoint(0, 0)).row()
        last = self.indexAt(QPoint(0, viewport.height() - 1)).row()
        return range(max(first, 0), (last if last >= 0 else self.thumbnails.rowCount() - 1) + 1)

    def scrolled(self, value: int) -> None:
        rows = self.visible_rows()
        self.loader.set_visible_range(rows.start, len(rows))
        self.motion.moved(value / ROW_HEIGHT)
        self.rest.start()

    def showEvent(self, event: object) -> None:
        rows = self.visible_rows()
        self.loader.set_visible_range(rows.start, len(rows))


def script(window: ListWindow, app: QApplication, shot: str) -> None:
    """Flings to the end in 16 ms steps, waits for the visible rows once at
    rest, then saves and reports what the list shows."""
    scroll_bar = window.verticalScrollBar()
    assert scroll_bar is not None
    stepper = QTimer(window)  # parented: it lives as long as the window
    stepper.setInterval(16)

    def step() -> None:
        if scroll_bar.value() < scroll_bar.maximum():
            scroll_bar.setValue(min(scroll_bar.value() + 3 * ROW_HEIGHT, scroll_bar.maximum()))
        elif not window.motion.moving and all(window.loader.lookup(row) for row in window.visible_rows()):
            stepper.stop()
            viewport = window.viewport()
            assert viewport is not None
            picture = viewport.grab().toImage()
            picture.save(shot)
            for row in window.visible_rows():
                corner = window.visualRect(window.thumbnails.index(row)).topLeft()
                colour = picture.pixelColor(corner.x() + 4 + THUMBNAIL // 2, corner.y() + 4 + THUMBNAIL // 2)
                print(f"row {row} {colour.name()}")
            app.exit(0)

    stepper.timeout.connect(step)
    stepper.start()
    QTimer.singleShot(30000, lambda: app.exit(1))


def main(argv: list[str]) -> int:
    shot = None
    if argv[:1] == ["--script"]:
        shot, argv = argv[1], argv[2:]
    app = QApplication(sys.argv[:1])
    with lazyimg.Loader(target_width=THUMBNAIL, target_height=THUMBNAIL,
                        pixel_format=lazyimg.PixelFormat.BGRA8_PREMULTIPLIED) as loader:
        window = ListWindow(loader, argv)
        window.show()
        if shot is not None:
            script(window, app, shot)
        return app.exec()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
