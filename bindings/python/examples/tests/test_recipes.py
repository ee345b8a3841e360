"""The integration recipes (bindings/python/examples), each run as a user
runs it, against a loopback feed of 60 rows in three colours: after a
scripted fling to the end, every row on screen must show its own colour."""
import asyncio
import os
import re
import struct
import subprocess
import sys

import pytest

from conftest import EXAMPLES


def shown_rows(output):
    """{row: colour} from the "row 12 #ff0000" lines a recipe prints."""
    return {int(row): colour for row, colour in re.findall(r"^row (\d+) (#[0-9a-f]{6})$", output, re.M)}


def check_the_end_of_the_list_shows(feed, rows):
    assert len(rows) >= 4 and max(rows) == len(feed.urls) - 1, rows
    assert {row: feed.colour(row) for row in rows} == rows


def run(recipe, feed, *options, **environment):
    child = subprocess.run([sys.executable, os.path.join(EXAMPLES, recipe), *options, *feed.urls],
                           env=dict(os.environ, **environment), capture_output=True, text=True, timeout=120)
    assert child.returncode == 0, child.stdout + child.stderr
    return shown_rows(child.stdout)


def test_qt_list_offscreen(feed, tmp_path):
    pytest.importorskip("PyQt6.QtWidgets")
    shot = tmp_path / "qt.png"
    rows = run("qt_list.py", feed, "--script", str(shot), QT_QPA_PLATFORM="offscreen")
    check_the_end_of_the_list_shows(feed, rows)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_gtk_list_under_xvfb(feed, xvfb):
    gi = pytest.importorskip("gi")
    try:
        gi.require_version("Gtk", "4.0")
    except ValueError:
        pytest.skip("no GTK 4 introspection data (gir1.2-gtk-4.0)")
    rows = run("gtk_list.py", feed, "--script", DISPLAY=xvfb, GDK_BACKEND="x11", GSK_RENDERER="cairo")
    check_the_end_of_the_list_shows(feed, rows)


def test_textual_list_with_the_test_pilot(feed):
    pytest.importorskip("textual")
    from textual.containers import VerticalScroll
    from textual_list import Thumbnail, ThumbnailList

    async def scripted():
        app = ThumbnailList(feed.urls)
        async with app.run_test(size=(60, 20)) as pilot:
            await asyncio.wait_for(app.shown.wait(), 30)
            first = {row: app.query_one(f"#row{row}", Thumbnail).colour for row in app.visible_rows()}
            app.shown.clear()
            app.query_one(VerticalScroll).scroll_end(animate=False)
            await pilot.pause()
            await asyncio.wait_for(app.shown.wait(), 30)
            last = {row: app.query_one(f"#row{row}", Thumbnail).colour for row in app.visible_rows()}
        return first, last

    first, last = asyncio.run(scripted())
    assert min(first) == 0 and {row: feed.colour(row) for row in first} == first
    check_the_end_of_the_list_shows(feed, last)


def png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_jupyter_contact_sheet_executed_by_nbclient(feed, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    import base64

    monkeypatch.setenv("LAZYIMG_SHEET_URLS", " ".join(feed.urls[:20]))
    notebook = nbformat.read(os.path.join(EXAMPLES, "contact_sheet.ipynb"), as_version=4)
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": EXAMPLES}}).execute()
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert "20 of 20 images" in code[1].outputs[0]["text"]
    pictures = [base64.b64decode(output["data"]["image/png"]) for cell in code[2:] for output in cell.outputs
                if "image/png" in output.get("data", {})]
    # The sheet (8 x 3 cells of 96 px), then row 0, red.png: 40 x 20 in both boxes (never upscaled).
    assert [png_size(picture) for picture in pictures] == [(8 * 96, 3 * 96), (40, 20), (40, 20)]
