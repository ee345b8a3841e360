"""Ctrl-C (SIGINT, also Jupyter's "interrupt kernel") interrupts a wait and a
dispatch loop: a child process blocks, says so on stdout, gets SIGINT and
must end with KeyboardInterrupt at once, its loader closed cleanly."""
import os
import signal
import subprocess
import sys
import textwrap

import pytest

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
    prelude = textwrap.dedent(f"""
        import lazyimg, threading
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
