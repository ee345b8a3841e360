"""Loaders and sessions inherited across fork() are marked dead in the child.

The library's threads stay in the parent, so a child that destroyed its copy
would wait for threads it does not have or free what they own (SIGSEGV).
The child's copies are left as they are, never destroyed (the memory is the
child's to drop when it exits), and every call on them raises ClosedError
saying so. Images stay readable: their pixels were copied with the process.
"""
from __future__ import annotations

import os
import weakref
from typing import Protocol


class Inheritable(Protocol):
    def _inherited(self) -> None:
        """Marks the object dead in a forked child, without destroying it."""


_live: weakref.WeakSet[Inheritable] = weakref.WeakSet()


def track(thing: Inheritable) -> None:
    """Marks `thing` dead in any child forked while it lives."""
    _live.add(thing)


def _after_fork_in_child() -> None:
    for thing in list(_live):
        thing._inherited()
    _live.clear()


os.register_at_fork(after_in_child=_after_fork_in_child)
