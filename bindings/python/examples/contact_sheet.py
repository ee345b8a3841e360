"""A contact sheet of images loaded by lazyimg, for a Jupyter notebook
(contact_sheet.ipynb): one Pillow image with a cell per URL, failed ones
left dark. Needs Pillow."""
from __future__ import annotations

from typing import Sequence

import PIL.Image

import lazyimg

BACKGROUND = (40, 40, 40, 255)


def contact_sheet(results: Sequence[lazyimg.Image | lazyimg.LazyImgError], cell: int = 96,
                  columns: int = 8) -> PIL.Image.Image:
    """The images of `results` (lazyimg.load's answer) centred in cells of
    `cell` pixels, `columns` to a row."""
    rows = max(1, -(-len(results) // columns))
    sheet = PIL.Image.new("RGBA", (columns * cell, rows * cell), BACKGROUND)
    for index, result in enumerate(results):
        if isinstance(result, lazyimg.Image):
            picture = result.to_pil()  # the library's pixels, not copied
            x = (index % columns) * cell + (cell - picture.width) // 2
            y = (index // columns) * cell + (cell - picture.height) // 2
            sheet.paste(picture, (x, y))
    return sheet
