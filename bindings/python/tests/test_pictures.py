"""Images as Python shows them: Pillow, Jupyter's PNG, and a contact sheet in
one call."""
import gc
import io

import pytest

import lazyimg
from lazyimg import Loader, Output, PixelFormat
from conftest import GREEN, HALF_BLUE, RED
from waiting import load


def one_image(server, path, **options):
    with Loader(**options) as loader:
        loader.set_items([server.url(path)])
        return load(loader, [0])[0].image


def test_to_pil_shares_rgba_pixels_and_keeps_the_image_alive(server):
    pil = pytest.importorskip("PIL.Image")
    image = one_image(server, "/red.png")
    picture = image.to_pil()
    assert isinstance(picture, pil.Image) and picture.mode == "RGBA" and picture.size == (40, 20)
    assert picture.readonly  # Pillow's flag for a picture over someone else's buffer
    del image
    gc.collect()
    assert picture.getpixel((39, 19)) == RED


def test_to_pil_converts_premultiplied_bgra_and_opens_encoded_files(server):
    pytest.importorskip("PIL.Image")
    blue = one_image(server, "/blue.png", pixel_format=PixelFormat.BGRA8_PREMULTIPLIED).to_pil()
    assert blue.mode == "RGBA" and blue.getpixel((0, 0)) == HALF_BLUE
    encoded = one_image(server, "/green.png", output=Output.ENCODED).to_pil()
    assert encoded.format == "PNG" and encoded.convert("RGBA").getpixel((3, 3)) == GREEN


def test_jupyter_shows_the_picture_as_png(server):
    pil = pytest.importorskip("PIL.Image")
    png = one_image(server, "/green.png", target_width=8, target_height=8)._repr_png_()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    shown = pil.open(io.BytesIO(png))
    assert shown.size == (8, 8) and shown.convert("RGBA").getpixel((7, 7)) == GREEN
    encoded = one_image(server, "/green.png", output=Output.ENCODED)
    assert encoded._repr_png_() == server.files["/green.png"]


def test_load_returns_each_rows_image_or_error(server):
    urls = [server.url("/red.png"), server.url("/missing.png"), None, server.url("/green.png")]
    red, missing, nothing, green = lazyimg.load(urls, target_width=8, target_height=8)
    assert red.size == (8, 4) and green.size == (8, 8)
    assert isinstance(missing, lazyimg.HTTPError) and missing.http_status == 404 and missing.row == 1
    assert isinstance(nothing, lazyimg.NoImageError)


def test_load_gives_up_after_its_timeout_and_cancels_what_is_left(server):
    with Loader() as loader:
        with pytest.raises(TimeoutError, match="of 2 rows had no answer within 0.5 s"):
            loader.load([server.url("/green.png"), server.url("/slow/0.png")], timeout=0.5)
        assert loader.wait(timeout=0) is False  # the cancelled ticket's event was taken
