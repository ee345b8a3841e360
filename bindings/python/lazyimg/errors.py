"""The exceptions for negative lazyimg statuses: LazyImgError and one
subclass per kind of failure, so that callers catch what they handle
(`except lazyimg.HTTPError as e: e.http_status`)."""
from __future__ import annotations

from ._library import lib
from .constants import Status, known


class LazyImgError(Exception):
    """A negative lazyimg_status.

    `status` is a Status (UNKNOWN_<n> for a code newer than this binding),
    `strerror` the library's lazyimg_strerror text, `message` what the event
    or the binding said about this failure ("" when nothing more is known),
    `url` and `row` the event's (None for a function's return status) and
    `http_status` the last HTTP status seen (0 if none)."""

    status: Status
    strerror: str
    message: str
    url: str | None
    row: int | None
    http_status: int

    def __init__(self, status: int, message: str = "", *, url: str | None = None, row: int | None = None,
                 http_status: int = 0) -> None:
        self.status = known(Status, status)
        self.strerror = strerror(status)
        self.message = message
        self.url = url
        self.row = row
        self.http_status = http_status
        text = f"LAZYIMG_{self.status.name} ({int(status)}): "
        # The library's messages often begin with the strerror text ("cancelled").
        text += message if message.startswith(self.strerror) else (
            f"{self.strerror}: {message}" if message else self.strerror)
        if url is not None:
            text += f" [{url}]"
        super().__init__(text)

    def __reduce__(self) -> tuple[object, ...]:
        # Exceptions pickle as type(*args): keep every field (ProcessPoolExecutor).
        return (_rebuild, (type(self), int(self.status), self.message, self.url, self.row, self.http_status))


def _rebuild(kind: type[LazyImgError], status: int, message: str, url: str | None, row: int | None,
             http_status: int) -> LazyImgError:
    error = LazyImgError.__new__(kind)
    LazyImgError.__init__(error, status, message, url=url, row=row, http_status=http_status)
    return error


class InvalidArgumentError(LazyImgError, ValueError):
    """E_INVALID_ARGUMENT: the library refused a value the binding could not
    check itself."""


class OutOfRangeError(LazyImgError, IndexError):
    """E_OUT_OF_RANGE: a row past the end of the list."""


class BadURLError(LazyImgError, ValueError):
    """E_BAD_URL: a URL libcurl cannot use, or a file:// URL that the loader
    does not allow."""


class NetworkError(LazyImgError):
    """E_NETWORK: no connection, a timeout, a reset, a name that does not
    resolve."""


class TLSError(NetworkError):
    """E_TLS: the server's certificate does not verify, or the handshake
    failed. A NetworkError too."""


class HTTPError(LazyImgError):
    """E_HTTP: the server answered an HTTP error; `http_status` is its code."""


class DecodeError(LazyImgError):
    """E_DECODE: a corrupt or truncated image file."""


class UnsupportedFormatError(LazyImgError):
    """E_UNSUPPORTED: a response that is no image format the library reads."""


class TooLargeError(LazyImgError):
    """E_TOO_LARGE: a response over max_response_bytes or an image over
    max_pixels."""


class FileError(LazyImgError):
    """E_IO: a file:// URL or the disk cache directory could not be read,
    written or locked, or the loader's threads could not be made."""


class CancelledError(LazyImgError):
    """E_CANCELLED: the ticket was cancelled (by cancel(), by the scroll
    policy when its row left the screen, by set_items or close). Not a
    failure: Event.cancelled tells it apart; AsyncLoader cancels the
    awaiting task instead (asyncio.CancelledError)."""


class OutOfMemoryError(LazyImgError, MemoryError):
    """E_NO_MEMORY."""


class MisuseError(LazyImgError):
    """E_MISUSE: a call the C API forbids here (close() inside one of the
    loader's own callbacks, wait() in THREAD delivery)."""


class ShutdownError(LazyImgError):
    """E_SHUTDOWN: the loader is being destroyed."""


class NoImageError(LazyImgError):
    """E_NO_IMAGE: the row's URL is None."""


class ProtocolError(LazyImgError):
    """E_PROTOCOL: the server's fault, not the network's: its reply broke HTTP
    (an oversized header, no status line, a redirect loop, a body that does
    not match its framing) or answered no request the library sent. The
    message says which. Retrying the same server rarely helps."""


class BadPlaceholderError(LazyImgError, ValueError):
    """E_BAD_PLACEHOLDER: a placeholder hash that does not parse. `row` is the
    first such row and `message` why; Loader.set_placeholders sets every
    other row it was given before raising this."""


class ClosedError(MisuseError, ValueError):
    """A call on a closed Loader or Session, or on one inherited across
    fork(): E_MISUSE, since the C API forbids any call on a destroyed object
    (there it would be a use after free). A ValueError too, as for a closed
    Python file."""

    def __init__(self, what: str = "loader", *, forked: bool = False) -> None:
        reason = (f"the lazyimg {what} was inherited across fork(): its threads stayed in the parent; "
                  f"make a new one in this process" if forked else f"the lazyimg {what} is closed")
        super().__init__(Status.E_MISUSE, reason)


_CLASSES: dict[int, type[LazyImgError]] = {
    Status.E_INVALID_ARGUMENT: InvalidArgumentError,
    Status.E_OUT_OF_RANGE: OutOfRangeError,
    Status.E_BAD_URL: BadURLError,
    Status.E_NETWORK: NetworkError,
    Status.E_HTTP: HTTPError,
    Status.E_DECODE: DecodeError,
    Status.E_UNSUPPORTED: UnsupportedFormatError,
    Status.E_TOO_LARGE: TooLargeError,
    Status.E_IO: FileError,
    Status.E_CANCELLED: CancelledError,
    Status.E_NO_MEMORY: OutOfMemoryError,
    Status.E_MISUSE: MisuseError,
    Status.E_SHUTDOWN: ShutdownError,
    Status.E_NO_IMAGE: NoImageError,
    Status.E_TLS: TLSError,
    Status.E_PROTOCOL: ProtocolError,
    Status.E_BAD_PLACEHOLDER: BadPlaceholderError,
}


def error_for(status: int, message: str = "", *, url: str | None = None, row: int | None = None,
              http_status: int = 0) -> LazyImgError:
    """The exception for a negative status: its subclass (LazyImgError for a
    code newer than this binding)."""
    return _CLASSES.get(status, LazyImgError)(status, message, url=url, row=row, http_status=http_status)


def check(status: int, context: str = "") -> Status:
    """Returns a non-negative status as a Status; raises error_for(status)
    for a negative one, with `context` as its message."""
    if status < 0:
        raise error_for(status, context)
    return known(Status, status)


def strerror(status: int) -> str:
    """lazyimg_strerror(status): the library's text for a status."""
    return bytes(lib.lazyimg_strerror(int(status))).decode("utf-8", "replace")
