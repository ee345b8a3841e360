"""The exception for negative lazyimg statuses."""
from ._library import lib
from .constants import Status, known


class LazyImgError(Exception):
    """A negative lazyimg_status. `status` is a Status (or an int for a code
    newer than this binding), `strerror` the library's lazyimg_strerror text,
    `message` the event's message when the error came with an event ("" for
    a function's return status), `url` and `row` the event's, else None."""

    def __init__(self, status, message="", *, url=None, row=None):
        self.status = known(Status, status)
        self.strerror = lib.lazyimg_strerror(int(status)).decode("utf-8", "replace")
        self.message = message
        self.url = url
        self.row = row
        name = self.status.name if isinstance(self.status, Status) else str(int(status))
        text = f"LAZYIMG_{name} ({int(status)}): {self.strerror}"
        if message:
            text += f": {message}"
        if url is not None:
            text += f" [{url}]"
        super().__init__(text)


class ClosedError(LazyImgError, ValueError):
    """A call on a closed Loader or Session: E_MISUSE, since the C API forbids
    any call on a destroyed object (there it would be a use after free). A
    ValueError too, as for a closed Python file."""

    def __init__(self, what):
        super().__init__(Status.E_MISUSE, f"the lazyimg {what} is closed")


def check(status):
    """Returns a non-negative status as a Status; raises LazyImgError for a
    negative one."""
    if status < 0:
        raise LazyImgError(status)
    return known(Status, status)
