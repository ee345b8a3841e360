"""What a memory hit and the other per-frame calls cost from Python, side by
side with the baseline a Python list would use instead: a dict lookup of a
PIL image. Each call runs in the same loop over the rows as the baseline;
the table gives the time per call with the loop and without it (the empty
loop subtracted), each as a multiple of the dict lookup. The C extension's
figures and ctypes' (the pure-Python fallback, LAZYIMG_PURE_PYTHON=1, in a
child process) are measured in the same run, and so is a screen of requests
while another Python thread computes (the calls hold or release the GIL).

    make bench-python
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import threading
import time
import timeit
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "bindings", "python", "tests"))

import PIL.Image  # noqa: E402

import lazyimg  # noqa: E402
from image_server import ImageServer  # noqa: E402

ROWS = 64
REPEAT = 7
SCREEN = 30
FRAMES = 300


def cached_loader(server: ImageServer) -> lazyimg.Loader:
    """A loader with ROWS distinct 64 x 64 images in its memory cache."""
    loader = lazyimg.Loader(target_width=64, target_height=64)
    images = loader.load([server.url("/green.png") + f"?row={row}" for row in range(ROWS)], timeout=60)
    assert all(isinstance(image, lazyimg.Image) for image in images), images
    loader.set_visible_range(0, ROWS)
    return loader


def per_call(statement: str, names: dict[str, Any]) -> float:
    """Nanoseconds per row of `for row in rows: <statement>`: the best of
    REPEAT runs of as many loops as take 0.2 s."""
    timer = timeit.Timer(f"for row in rows:\n    {statement}", globals=names)
    loops, _ = timer.autorange()
    return min(timer.repeat(REPEAT, loops)) / (loops * ROWS) * 1e9


def screen_while_busy(loader: lazyimg.Loader) -> tuple[float, float]:
    """Microseconds for SCREEN memory hits (one frame's cells) while another
    thread runs Python code: median and p99 over FRAMES frames."""
    stop = threading.Event()

    def compute() -> None:
        while not stop.is_set():
            sum(range(1000))

    busy = threading.Thread(target=compute)
    busy.start()
    frames = []
    try:
        for _ in range(FRAMES):
            start = time.perf_counter()
            for row in range(SCREEN):
                loader.request(row)
            frames.append((time.perf_counter() - start) * 1e6)
    finally:
        stop.set()
        busy.join()
    frames.sort()
    return statistics.median(frames), frames[int(len(frames) * 0.99) - 1]


def measure() -> dict[str, Any]:
    server = ImageServer()
    try:
        loader = cached_loader(server)
        thumbnail = PIL.Image.new("RGBA", (64, 64))
        names = {"rows": range(ROWS), "loader": loader, "cache": {row: thumbnail for row in range(ROWS)},
                 "DRAGGING": lazyimg.ScrollState.DRAGGING}
        figures = {
            "empty loop": per_call("pass", names),
            "dict lookup of a PIL image: cache[row]": per_call("cache[row]", names),
            "cache.get(row)": per_call("cache.get(row)", names),
            "loader.request(row), memory hit": per_call("loader.request(row)", names),
            "loader.lookup(row), memory hit": per_call("loader.lookup(row)", names),
            "loader.set_visible_range(row, 8)": per_call("loader.set_visible_range(row, 8)", names),
            "loader.set_scroll_state(DRAGGING, 3.0)": per_call("loader.set_scroll_state(DRAGGING, 3.0)", names),
        }
        loader.set_scroll_state(lazyimg.ScrollState.IDLE, 0.0)
        busy = screen_while_busy(loader)
        loader.close()
    finally:
        server.stop()
    return {"speedups": lazyimg.speedups, "figures": figures, "busy": busy}


def table(c: dict[str, Any], pure: dict[str, Any]) -> str:
    assert c["speedups"] and not pure["speedups"], "the C extension must be built and in use here"
    loop, baseline = c["figures"]["empty loop"], c["figures"]["dict lookup of a PIL image: cache[row]"]
    net_baseline = baseline - loop
    lines = [f"Python per-frame calls: {ROWS} cached 64x64 images, best of {REPEAT} runs of loops over the rows "
             f"(0.2 s each), CPython {sys.version.split()[0]}",
             f"{'call':52} {'ns/call':>8} {'x dict':>7} {'net ns':>8} {'net x dict':>11}"]

    def line(name: str, ns: float) -> str:
        net = ns - loop
        return f"{name:52} {ns:8.1f} {ns / baseline:7.2f} {net:8.1f} {net / net_baseline:11.2f}"

    lines.append(line("empty loop (subtracted in the net columns)", loop))
    for name in ("dict lookup of a PIL image: cache[row]", "cache.get(row)"):
        lines.append(line(name, c["figures"][name]))
    for name, ns in c["figures"].items():
        if name.startswith("loader."):
            lines.append(line(f"{name}, C extension", ns))
    for name, ns in pure["figures"].items():
        if name.startswith("loader."):
            lines.append(line(f"{name}, ctypes", ns))
    lines.append("")
    lines.append(f"{SCREEN} memory hits (a screen) while another Python thread computes, {FRAMES} frames")
    lines.append(f"{'path':52} {'p50 us':>8} {'p99 us':>8}")
    lines.append(f"{'C extension (keeps the GIL: never blocks)':52} {c['busy'][0]:8.1f} {c['busy'][1]:8.1f}")
    lines.append(f"{'ctypes (releases the GIL in each call)':52} {pure['busy'][0]:8.1f} {pure['busy'][1]:8.1f}")
    return "\n".join(lines)


def main() -> None:
    if "--json" in sys.argv:
        print(json.dumps(measure()))
        return
    child = subprocess.run([sys.executable, os.path.abspath(__file__), "--json"], capture_output=True, text=True,
                           env=dict(os.environ, LAZYIMG_PURE_PYTHON="1"), check=True)
    pure = json.loads(child.stdout)
    print(table(measure(), pure))


if __name__ == "__main__":
    main()
