"""Loads the URLs given on the command line into 64x64 thumbnails with asyncio,
and prints what arrived: one line per URL, exit status 1 if any failed.

    python3 example.py URL...

(with lazyimg installed: pip install ./bindings/python or the wheel; from a
checkout, LAZYIMG_LIBRARY=/path/to/liblazyimg.so.0 finds the library).
"""
import asyncio
import sys

import lazyimg
from lazyimg.aio import AsyncLoader


async def main(urls: list[str]) -> bool:
    async with AsyncLoader(target_width=64, target_height=64) as loader:
        loader.set_items(urls)
        results = await asyncio.gather(*(loader.image(row) for row in range(len(urls))),
                                       return_exceptions=True)
    for url, result in zip(urls, results):
        if isinstance(result, lazyimg.Image):
            pixels = result.memoryview()  # no copy: numpy.asarray(result) works too
            print(f"{url}: {result.width}x{result.height} from {result.source_width}x{result.source_height}, "
                  f"{pixels.nbytes} bytes of {result.pixel_format.name}")
        else:  # a LazyImgError (HTTPError, DecodeError, ...), or CancelledError for a cancelled row
            print(f"{url}: {result!r}")
    return not all(isinstance(result, lazyimg.Image) for result in results)


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
