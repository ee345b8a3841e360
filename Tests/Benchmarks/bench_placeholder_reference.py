"""The reference decoders' side of Tests/Benchmarks/bench-placeholder.sh: microseconds per
placeholder render, one thread, best of ROUNDS rounds (as timeit advises: other
processes only ever add time).

Usage: bench_placeholder_reference.py IMPLEMENTATION SECONDS ROUNDS < cases
Cases are lines `<blurhash|thumbhash> <hash> <width> <height>` (ThumbHash as base64);
each is printed back with `<microseconds>`, or `-` where the implementation cannot
render that case (the Rust reference renders only at its own size).

Implementations, each called the cheapest way it offers:
  blurhash           blurhash.decode (pure Python; the TypeScript reference's arithmetic)
  blurhash-c         Wolt's C reference decoder inside blurhash-python, called through
                     cffi into a buffer made once (no PIL image)
  fast_thumbhash     thumb_hash_to_rgba of the Rust reference crate (PyO3)
  thumbhash-python   thumbhash_to_rgba with a base size (pure Python)
"""
import base64
import sys
import timeit


def blurhash_py(kind, text, width, height):
    import blurhash
    return lambda: blurhash.decode(text, width, height)


def blurhash_c(kind, text, width, height):
    from blurhash._functions import ffi, lib
    string = ffi.new("char[]", text.encode())
    pixels = ffi.new("uint8_t[]", width * height * 4)

    def render():
        if lib.create_pixels_from_blurhash(string, width, height, 1, 4, pixels) == -1:
            raise ValueError(text)
    return render


def fast_thumbhash(kind, text, width, height):
    import fast_thumbhash
    data = base64.b64decode(text)
    if fast_thumbhash.thumb_hash_to_rgba(data)[:2] != (width, height):
        return None
    return lambda: fast_thumbhash.thumb_hash_to_rgba(data)


def thumbhash_python(kind, text, width, height):
    from thumbhash.decode import thumbhash_to_rgba
    data = base64.b64decode(text)
    base = max(width, height)
    if thumbhash_to_rgba(data, base)[:2] != (width, height):
        return None
    return lambda: thumbhash_to_rgba(data, base)


IMPLEMENTATIONS = {
    "blurhash": ("blurhash", blurhash_py),
    "blurhash-c": ("blurhash", blurhash_c),
    "fast_thumbhash": ("thumbhash", fast_thumbhash),
    "thumbhash-python": ("thumbhash", thumbhash_python),
}


def main():
    name, seconds, rounds = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    kind_served, make = IMPLEMENTATIONS[name]
    for line in sys.stdin:
        kind, text, width, height = line.split()
        render = make(kind, text, int(width), int(height)) if kind == kind_served else None
        if render is None:
            print(line.strip(), "-")
            continue
        render()
        # Enough calls per round for seconds / rounds, at least one.
        once = timeit.timeit(render, number=1)
        number = max(1, int(seconds / rounds / max(once, 1e-9)))
        best = min(timeit.repeat(render, number=number, repeat=rounds)) / number
        print(line.strip(), best * 1e6, flush=True)


main()
