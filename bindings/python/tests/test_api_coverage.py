"""Every function of lazyimg.h is reachable from the Pythonic layer, not only
declared in _library.PROTOTYPES: a header function added without a Loader,
Session, Image or module-level wrapper fails here, by name."""
import os
import re

from lazyimg import _library

PACKAGE = os.path.join(os.path.dirname(__file__), "..", "lazyimg")


def test_every_declared_function_is_called_by_the_pythonic_layer():
    called = set()
    for name in os.listdir(PACKAGE):
        if name.endswith(".py") and name != "_library.py":
            with open(os.path.join(PACKAGE, name)) as f:
                called.update(re.findall(r"\blib\.(lazyimg_\w+)\b", f.read()))
    assert sorted(set(_library.PROTOTYPES) - called) == []
