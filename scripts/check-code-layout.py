#!/usr/bin/env python3
"""Checks that a release liblazyimg.so lays the functions a UI thread runs each
frame side by side, as Sources/LazyImgABI/ui-thread.order lists them.

The first FIRST functions of the list must lie on at most PAGES 4 KiB pages. A
build without function sections, or without the linker's ordering file, scatters
them over about six times as many (docs/performance.md, "Code pages"). A few of
them may be gone, renamed by a change since the list was made (they are named, and
`make ui-thread-order` remakes it); more than STALE fail the check.

Usage: check-code-layout.py path/to/liblazyimg.so"""
import pathlib
import subprocess
import sys

FIRST = 60
PAGES = 12
STALE = 6

root = pathlib.Path(__file__).resolve().parent.parent
order = root / "Sources" / "LazyImgABI" / "ui-thread.order"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check-code-layout.py path/to/liblazyimg.so")
    symbols = {}
    listing = subprocess.run(["nm", "--defined-only", "-S", sys.argv[1]], check=True, capture_output=True, text=True)
    for line in listing.stdout.splitlines():
        fields = line.split()
        if len(fields) == 4:
            symbols[fields[3]] = (int(fields[0], 16), int(fields[1], 16))
    names = [line.strip().removeprefix(".text.") for line in order.read_text().splitlines() if line.strip()]
    first = names[:FIRST]
    missing = [name for name in first if name not in symbols]
    if missing:
        print(f"check-code-layout: {len(missing)} of the first {FIRST} functions of ui-thread.order "
              f"are not in the library (make ui-thread-order remakes the list):")
        for name in missing[:10]:
            print(f"  {name}")
        if len(missing) > STALE:
            return 1
    pages = set()
    for name in first:
        if name not in symbols:
            continue
        start, size = symbols[name]
        pages.update(range(start >> 12, ((start + max(size, 1) - 1) >> 12) + 1))
    if len(pages) > PAGES:
        print(f"check-code-layout: the first {FIRST} functions of ui-thread.order lie on {len(pages)} pages, "
              f"more than {PAGES}: is the build without -function-sections or the ordering file?")
        return 1
    print(f"check-code-layout: the first {FIRST} functions a frame runs on {len(pages)} pages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
