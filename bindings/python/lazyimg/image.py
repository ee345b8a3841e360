"""Image: one lazyimg_image reference, with its pixels as a buffer."""
import ctypes

from ._library import lib
from .constants import Codec, PixelFormat, known


class Image:
    """Owns one reference to a lazyimg_image, dropped when this object is
    collected. The pixels never change and stay valid while it lives, also
    after the loader is closed.

    memoryview() gives the pixels (or an encoded image's bytes) without a
    copy; the view keeps this Image alive, so numpy.asarray(image) (through
    __array_interface__) and PIL.Image.frombuffer("RGBA", image.size,
    image.memoryview(), "raw", "RGBA", image.stride, 1) share the library's
    memory safely. On Python 3.12+ the Image itself is a buffer."""

    __slots__ = ("_pointer", "__weakref__")

    def __init__(self, pointer):
        """Takes over a +1 reference (a lazyimg_image * as an int)."""
        if not pointer:
            raise ValueError("NULL lazyimg_image")
        self._pointer = pointer

    @classmethod
    def retained(cls, pointer):
        """A new reference to a borrowed lazyimg_image *."""
        return cls(lib.lazyimg_image_retain(pointer))

    def __del__(self):
        pointer, self._pointer = getattr(self, "_pointer", None), None
        if pointer:
            lib.lazyimg_image_release(pointer)

    width = property(lambda self: lib.lazyimg_image_width(self._pointer))
    height = property(lambda self: lib.lazyimg_image_height(self._pointer))
    size = property(lambda self: (self.width, self.height))
    stride = property(lambda self: lib.lazyimg_image_stride(self._pointer))
    source_width = property(lambda self: lib.lazyimg_image_source_width(self._pointer))
    source_height = property(lambda self: lib.lazyimg_image_source_height(self._pointer))
    is_animated = property(lambda self: bool(lib.lazyimg_image_is_animated(self._pointer)))
    # A damaged file shown as browsers show it (lazyimg_image_is_damaged).
    is_damaged = property(lambda self: bool(lib.lazyimg_image_is_damaged(self._pointer)))
    pixel_format = property(lambda self: known(PixelFormat, lib.lazyimg_image_pixel_format(self._pointer)))
    codec = property(lambda self: known(Codec, lib.lazyimg_image_codec(self._pointer)))
    is_encoded = property(lambda self: self.codec != Codec.UNKNOWN)

    def _address_and_length(self):
        count = ctypes.c_size_t(0)
        encoded = lib.lazyimg_image_encoded_data(self._pointer, ctypes.byref(count))
        if encoded:
            return encoded, count.value
        return lib.lazyimg_image_pixels(self._pointer), self.stride * self.height

    def memoryview(self):
        """The pixels (stride * height bytes, top row first) or an encoded
        image's bytes, read-only and without a copy."""
        address, length = self._address_and_length()
        if not address or length == 0:
            return memoryview(b"")
        array = (ctypes.c_uint8 * length).from_address(address)
        array._image = self  # the view keeps the array, the array keeps us
        return memoryview(array).toreadonly()

    def __buffer__(self, flags):
        return self.memoryview()

    def tobytes(self):
        """A copy of memoryview()."""
        return self.memoryview().tobytes()

    @property
    def __array_interface__(self):
        """numpy's view: height x width x 4 bytes, rows stride apart; numpy
        keeps this Image as the array's base. Encoded images: 1-D bytes."""
        address, length = self._address_and_length()
        if self.is_encoded:
            return {"version": 3, "shape": (length,), "typestr": "|u1", "data": (address, True)}
        return {"version": 3, "shape": (self.height, self.width, 4), "typestr": "|u1",
                "strides": (self.stride, 4, 1), "data": (address or 0, True)}

    def __repr__(self):
        if self.is_encoded:
            return f"<lazyimg.Image {self.codec.name} {len(self.memoryview())} bytes>"
        return f"<lazyimg.Image {self.width}x{self.height} {self.pixel_format.name}>"
