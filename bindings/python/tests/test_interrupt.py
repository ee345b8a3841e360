"""Ctrl-C (SIGINT, also Jupyter's "interrupt kernel") interrupts a wait and a
dispatch loop: a child process blocks, says so on stdout, gets SIGINT and
must end with KeyboardInterrupt at once, its loader closed cleanly."""
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading

import pytest

import lazyimg
from conftest import BINDING, INSTALLED

BLOCKS = {
    # The server holds /slow/ responses: no event comes.
    "wait": """
        loader.request(0)
        print("blocking", flush=True)
        loader.wait()
    """,
    "dispatch loop": """
        loader.request(0)
        print("blocking", flush=True)
        while True:
            loader.wait(timeout=3600)
            loader.dispatch()
    """,
    # A callback that blocks, inside dispatch: the interrupt is re-raised by dispatch.
    "callback": """
        import threading
        loader.set_items([URL.replace("/slow/0.png", "/green.png")])
        loader.request(0)
        loader.wait(timeout=30)
        loader.dispatch()
    """,
}


@pytest.mark.parametrize("where", list(BLOCKS))
def test_sigint_interrupts(server, where):
    # The child takes Ctrl-C as an interactive Python does, whatever it inherits:
    # a process started in the background by a non-interactive shell (nohup, a
    # CI runner) starts with SIGINT ignored, and Python then leaves it ignored.
    prelude = textwrap.dedent(f"""
        import lazyimg, signal, threading
        signal.signal(signal.SIGINT, signal.default_int_handler)
        URL = {server.url('/slow/0.png')!r}

        def on_event(event):
            print("blocking", flush=True)
            threading.Event().wait()

        loader = lazyimg.Loader(on_event=on_event if {where!r} == "callback" else None)
        loader.set_items([URL])
        try:
    """)
    ending = textwrap.dedent("""
        except KeyboardInterrupt:
            print("interrupted", flush=True)
        loader.close()
        print("closed", flush=True)
    """)
    code = prelude + textwrap.indent(textwrap.dedent(BLOCKS[where]), "    ") + ending
    env = dict(os.environ)
    if not INSTALLED:
        env["PYTHONPATH"] = BINDING
    child = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "blocking\n", child.stderr.read()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=20)
    finally:
        child.kill()
        server.release.set()
    assert child.returncode == 0, err
    assert out.split("\n")[:2] == ["interrupted", "closed"], out + err


def blocked_signals(thread_status):
    """The signal numbers a /proc/.../status file's SigBlk mask blocks."""
    mask = int(re.search(r"^SigBlk:\s*([0-9a-f]+)$", thread_status, re.M).group(1), 16)
    return {number for number in range(1, 65) if mask & (1 << (number - 1))}


def test_the_librarys_threads_leave_signals_to_pythons():
    """A process-directed SIGINT goes to a thread that does not block it: it
    must be one of Python's, whose poll() it interrupts. (The library names
    its threads once they run: they are told apart as the ones Python did not
    start.)"""
    with lazyimg.Session() as session, lazyimg.Loader(session=session) as loader, lazyimg.Loader() as other:
        python_threads = {thread.native_id for thread in threading.enumerate()}
        library = {}
        for task in os.listdir("/proc/self/task"):
            if int(task) not in python_threads:
                with open(f"/proc/self/task/{task}/status") as status:
                    library[task] = blocked_signals(status.read())
        assert len(library) >= 4, library
        for task, blocked in library.items():
            assert {signal.SIGINT, signal.SIGTERM, signal.SIGCHLD} <= blocked, (task, blocked)
        with open("/proc/thread-self/status") as status:
            assert signal.SIGINT not in blocked_signals(status.read())
        assert loader.item_count() == other.item_count() == 0
