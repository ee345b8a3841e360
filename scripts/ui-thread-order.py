#!/usr/bin/env python3
"""Writes Sources/LazyImgABI/ui-thread.order from callgrind profiles of the scroll
benchmark's frames (`make ui-thread-order` makes the profiles and runs this).

The linker lays the sections listed there side by side, those that run in the most
frames first, so the
code a UI thread runs in each frame (the lazyimg_* calls and what they call, the
Swift runtime's included) sits on a few pages instead of on a hundred across the
library's 6 MB of text. A frame that follows a 16 ms sleep pays for each code page
it touches again (docs/performance.md, "Code pages").

Usage: ui-thread-order.py OUT PROFILE... (callgrind outputs made with
--demangle=no, --separate-threads=yes, --toggle-collect=lazyimg_host_frame and
--dump-after=lazyimg_host_frame: one profile per frame. Without separate threads,
whatever another thread ran while the UI thread was in a frame counted as the
frame's.) Ranked by frames, not calls: the runtime's type lookup, run once per type
at its first use, makes thousands of calls in one frame. Functions of the
benchmark's own host (lazyimg_host_*) and of other objects (libc) are left out, and
so are functions that ran in one frame only: where they lie does not matter."""
import collections
import re
import sys

COST = re.compile(r"^(\d+|\+\d+|-\d+|\*)\s+(\d+)")
NAMED = re.compile(r"\((\d+)\)\s*(.*)")


def named(value, table):
    """Resolves callgrind's name compression: "(7) name" defines 7, "(7)" uses it."""
    match = NAMED.match(value)
    if not match:
        return value
    number, name = match.groups()
    if name:
        table[number] = name
    return table.get(number, value)


def profile(path, program, calls, cost):
    """Adds the calls into, and the own cost of, each of `program`'s functions in
    the profile at `path`."""
    names, objects = {}, {}
    obj = fn = callee_obj = callee = None
    after_calls = False
    with open(path) as lines:
        for line in lines:
            line = line.rstrip("\n")
            key, _, value = line.partition("=")
            if key == "ob":
                obj = named(value, objects)
            elif key == "cob":
                callee_obj = named(value, objects)
            elif key == "fn":
                fn, callee_obj = named(value, names), None
            elif key == "cfn":
                callee = named(value, names)
            elif key == "calls":
                if (callee_obj or obj or "").endswith(program):
                    calls[callee] += int(value.split()[0])
                callee_obj, after_calls = None, True
            elif COST.match(line):
                # The line after calls= is the call's inclusive cost, not fn's own.
                if not after_calls and (obj or "").endswith(program):
                    cost[fn] += int(COST.match(line).group(2))
                after_calls = False


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: ui-thread-order.py OUT PROFILE...")
    out, paths = sys.argv[1], sys.argv[2:]
    calls, cost, frames = collections.Counter(), collections.Counter(), collections.Counter()
    for path in paths:
        own = collections.Counter()
        profile(path, "lazyimg-bench-scroll", calls, own)
        cost.update(own)
        frames.update(f for f, c in own.items() if c > 0)
    functions = [f for f in cost if f and not f.startswith("lazyimg_host_") and "'" not in f and frames[f] > 1]
    functions.sort(key=lambda f: (-frames[f], -calls[f], f))
    with open(out, "w") as order:
        for function in functions:
            order.write(f".text.{function}\n")
    print(f"{out}: {len(functions)} functions")


if __name__ == "__main__":
    main()
