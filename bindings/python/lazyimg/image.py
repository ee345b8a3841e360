"""Image: one lazyimg_image reference, with its pixels as a buffer."""
from __future__ import annotations

import ctypes
import io
import operator
import sys
from typing import TYPE_CHECKING, Any, NoReturn

from ._core import ImageBase, bind, wrap
from ._library import lib
from .constants import Codec, PixelFormat, known

if TYPE_CHECKING:
    import PIL.Image


class Image(ImageBase):
    """One decoded thumbnail (or, with Output.ENCODED, the file's bytes).

    Holds one reference to the library's image, dropped when this object is
    collected. The pixels never change and stay valid while it lives, also
    after the loader is closed. Images come from Loader.request, lookup and
    events; they cannot be made from Python.

    memoryview() gives the pixels (or an encoded image's bytes) without a
    copy, and the view keeps this Image alive; so do numpy.asarray(image)
    (through __array_interface__) and to_pil(). On Python 3.12+ the Image
    itself is a buffer. copy.copy and copy.deepcopy give a new reference to
    the same (immutable) pixels; pickling is refused, since the pixels are
    the library's memory: pickle to_pil() or tobytes() instead."""

    __slots__ = ()

    def __new__(cls, *args: object, **kwargs: object) -> Image:
        """Refused: images come from a Loader (request, lookup, events)."""
        raise TypeError("cannot create lazyimg.Image instances: images come from a Loader (request, lookup, "
                        "events)")

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels, as PIL's Image.size."""
        return self.width, self.height

    @property
    def pixel_format(self) -> PixelFormat:
        """The layout of the pixels: the loader's pixel_format."""
        return known(PixelFormat, self._pixel_format)

    @property
    def codec(self) -> Codec:
        """The encoded file's format (Output.ENCODED); Codec.UNKNOWN for pixels."""
        return known(Codec, self._codec)

    @property
    def frame_count(self) -> int:
        """The frames of the animation this is the first frame of: 1 for a
        still image (and for an animation its loader does not play:
        animation_buffer_bytes 0), 0 for an encoded image."""
        return int(lib.lazyimg_image_frame_count(self._pointer))

    @property
    def loop_count(self) -> int:
        """How many times the animation plays: 0 = forever, 1 for a still."""
        return int(lib.lazyimg_image_loop_count(self._pointer))

    def frame_duration(self, index: int) -> int:
        """Frame `index`'s duration in milliseconds, as played (under 20 ms
        in the file plays for 100 ms, as browsers do); 0 for a still.
        Raises IndexError past the last frame."""
        number = operator.index(index)
        if not 0 <= number < self.frame_count:
            raise IndexError(f"frame {number} of {self.frame_count}")
        return int(lib.lazyimg_image_frame_duration(self._pointer, number))

    @property
    def is_damaged(self) -> bool:
        """True for a damaged file shown as browsers show it (lazyimg_image_is_damaged)."""
        return bool(lib.lazyimg_image_is_damaged(self._pointer))

    @property
    def is_placeholder(self) -> bool:
        """True for a placeholder drawn from a hash (Status.PLACEHOLDER,
        Loader.lookup_placeholder): a blur to show until the row's image
        comes, never the image itself (lazyimg_image_is_placeholder)."""
        return bool(lib.lazyimg_image_is_placeholder(self._pointer))

    @property
    def is_encoded(self) -> bool:
        """True for an Output.ENCODED image: the file's bytes, no pixels."""
        return self._codec != Codec.UNKNOWN

    def _address_and_length(self) -> tuple[int, int]:
        count = ctypes.c_size_t(0)
        encoded = lib.lazyimg_image_encoded_data(self._pointer, ctypes.byref(count))
        if encoded:
            return int(encoded), count.value
        return int(lib.lazyimg_image_pixels(self._pointer) or 0), self.stride * self.height

    def memoryview(self) -> memoryview:
        """The pixels (stride * height bytes, top row first) or an encoded
        image's bytes, read-only and without a copy; the view keeps this
        Image alive."""
        address, length = self._address_and_length()
        if not address or length == 0:
            return memoryview(b"")
        array = (ctypes.c_uint8 * length).from_address(address)
        array._image = self  # type: ignore[attr-defined] # the view keeps the array, the array keeps us
        # cast: ctypes says "<B", which memoryview cannot index; "B" it can.
        return memoryview(array).cast("B").toreadonly()

    if sys.version_info >= (3, 12):
        def __buffer__(self, flags: int) -> memoryview:
            """The buffer protocol (Python 3.12+): memoryview()."""
            return self.memoryview()

    def tobytes(self) -> bytes:
        """A copy of memoryview()."""
        return self.memoryview().tobytes()

    @property
    def __array_interface__(self) -> dict[str, Any]:
        """numpy's view: height x width x 4 bytes, rows stride apart; numpy
        keeps this Image as the array's base. Encoded images: 1-D bytes."""
        address, length = self._address_and_length()
        if self.is_encoded:
            return {"version": 3, "shape": (length,), "typestr": "|u1", "data": (address, True)}
        return {"version": 3, "shape": (self.height, self.width, 4), "typestr": "|u1",
                "strides": (self.stride, 4, 1), "data": (address, True)}

    def to_pil(self) -> PIL.Image.Image:
        """A Pillow image of this one. RGBA8 pixels are shared, not copied
        (a read-only PIL image that keeps this Image alive; Pillow copies it
        if you draw on it); BGRA8_PREMULTIPLIED pixels are converted to RGBA;
        an encoded image is opened by Pillow. Needs Pillow (pip install
        pillow)."""
        import PIL.Image

        if self.is_encoded:
            return PIL.Image.open(io.BytesIO(self.tobytes()))
        if self.pixel_format == PixelFormat.RGBA8:
            # Pillow maps any buffer; its stubs name only bytes and arrays.
            return PIL.Image.frombuffer("RGBA", self.size, self.memoryview(),  # type: ignore[arg-type]
                                        "raw", "RGBA", self.stride, 1)
        return PIL.Image.frombytes("RGBA", self.size, self.tobytes(), "raw", "BGRa", self.stride, 1)

    def _repr_png_(self) -> bytes | None:
        """Jupyter's rich display: the picture as PNG (None without Pillow)."""
        if self.codec == Codec.PNG:
            return self.tobytes()
        try:
            picture = self.to_pil()
        except ImportError:
            return None
        out = io.BytesIO()
        picture.save(out, format="PNG")
        return out.getvalue()

    def __copy__(self) -> Image:
        """A new reference to the same pixels."""
        return wrap(lib.lazyimg_image_retain(self._pointer))

    def __deepcopy__(self, memo: dict[int, object]) -> Image:
        """A new reference to the same pixels (they never change)."""
        return self.__copy__()

    def __reduce_ex__(self, protocol: Any) -> NoReturn:
        """Refused: the pixels are the library's memory, which another
        process does not have."""
        raise TypeError("a lazyimg.Image cannot be pickled: its pixels live in this process's library; "
                        "pickle image.to_pil() or image.tobytes() instead")

    def __repr__(self) -> str:
        if self.is_encoded:
            return f"<lazyimg.Image {self.codec.name} {len(self.memoryview())} bytes>"
        return f"<lazyimg.Image {self.width}x{self.height} {self.pixel_format.name}>"


bind(Image)
