"""What plain Python does with the binding's objects must not crash the
process: copies, pickling, processes, fork. Crashes are checked in a child
process (a segfault there fails the test instead of ending the run)."""
import concurrent.futures
import copy
import gc
import multiprocessing
import os
import pickle
import subprocess
import sys
import textwrap

import pytest

import lazyimg
from lazyimg import ClosedError, Loader, Session
from lazyimg._library import lib
from conftest import GREEN, INSTALLED, BINDING
from waiting import load


def run_child(code, server, **environment):
    """Runs `code` in a new interpreter with the server's URL as URL; returns
    the finished process (exit status -11 for a segfault)."""
    env = dict(os.environ, **environment)
    if not INSTALLED:
        env["PYTHONPATH"] = BINDING
    prelude = f"import lazyimg\nURL = {server.url('/green.png')!r}\n"
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=60)


def loaded_image(loader, server, path="/green.png"):
    loader.set_items([server.url(path)])
    return load(loader, [0])[0].image


def test_a_copied_image_takes_its_own_reference(server):
    """Each copy holds the pixels alone once the original and the memory
    cache let go; freed memory is filled with 0xa5 (MALLOC_PERTURB_), so
    pixels read after a free are wrong, where they do not crash."""
    child = run_child("""
        import copy, gc
        with lazyimg.Loader() as loader:
            loader.set_items([URL])
            loader.request(0)
            while loader.lookup(0) is None:
                loader.wait(timeout=30)
                loader.dispatch()
            image = loader.lookup(0)
            twins = [copy.copy(image), copy.deepcopy(image), *copy.deepcopy([image, image])]
            del image
            gc.collect()
            loader.trim_memory(lazyimg.TRIM_COMPLETE)  # the cache's reference goes too
            print([bytes(twin.memoryview()[:4]).hex() for twin in twins])
            del twins
            gc.collect()
        print("done")
    """, server, MALLOC_PERTURB_="165")
    assert child.returncode == 0, child.stderr
    assert child.stdout.split("\n")[:2] == [str(["00ff00ff"] * 4), "done"]


def test_copies_share_the_pixels_and_each_holds_them(server):
    with Loader() as loader:
        image = loaded_image(loader, server)
    shallow, deep = copy.copy(image), copy.deepcopy(image)
    assert shallow is not image and deep is not image
    assert shallow._pointer == deep._pointer == image._pointer
    del image
    gc.collect()
    assert bytes(shallow.memoryview()[:4]) == bytes(GREEN) and deep.size == (16, 16)


def test_pickling_an_image_is_refused_with_what_to_do_instead(server):
    with Loader() as loader:
        image = loaded_image(loader, server)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        with pytest.raises(TypeError, match="to_pil"):
            pickle.dumps(image, protocol)


def _send_image_back(url):
    return lazyimg.load([url])[0]


def _send_pixels_back(url):
    image = lazyimg.load([url])[0]
    return image.size, image.tobytes()


def test_an_image_from_a_process_pool_is_a_pickling_error_not_a_garbage_image(server):
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        with pytest.raises(TypeError, match="cannot be pickled"):
            pool.submit(_send_image_back, server.url("/green.png")).result(timeout=60)
        size, pixels = pool.submit(_send_pixels_back, server.url("/green.png")).result(timeout=60)
    assert size == (16, 16) and pixels[:4] == bytes(GREEN)


def test_loaders_and_sessions_refuse_copies_and_pickling():
    with Session() as session, Loader() as loader:
        for thing in (session, loader):
            for attempt in (copy.copy, copy.deepcopy, pickle.dumps):
                with pytest.raises(TypeError, match="cannot be copied or pickled"):
                    attempt(thing)


def test_errors_pickle_with_their_fields():
    error = lazyimg.errors.error_for(lazyimg.Status.E_HTTP, "HTTP 404", url="http://x/y.png", row=3, http_status=404)
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is lazyimg.HTTPError and again.http_status == 404 and again.row == 3
    assert str(again) == str(error)
    closed = pickle.loads(pickle.dumps(ClosedError("session")))
    assert type(closed) is ClosedError and "session is closed" in str(closed)


@pytest.mark.parametrize("ending", ["close", "finalize"])
def test_a_forked_child_sees_the_inherited_loader_dead_and_never_destroys_it(server, ending):
    child = run_child(f"""
        import gc, os, sys
        session = lazyimg.Session()
        loader = lazyimg.Loader(session=session)
        loader.set_items([URL, URL + "?2"])
        loader.request(0)
        while loader.lookup(0) is None:
            loader.wait(timeout=30)
            loader.dispatch()
        image = loader.lookup(0)
        loader.request(1)  # outstanding while the process forks
        pid = os.fork()
        if pid == 0:
            status = 0
            try:
                loader.request(0)
                status = 3
            except lazyimg.ClosedError as error:
                if "fork" not in str(error) or not loader.closed or not session.closed:
                    status = 4
            if bytes(image.memoryview()[:4]) != bytes((0, 255, 0, 255)):
                status = 5
            if {ending!r} == "close":
                loader.close()
                session.close()
            else:
                del loader, session
                gc.collect()
            del image
            gc.collect()
            os._exit(status)
        _, status = os.waitpid(pid, 0)
        print("child", status)
        loader.close()
        session.close()
        print("parent closed")
    """, server)
    assert child.returncode == 0, child.stderr
    assert child.stdout.split("\n")[:2] == ["child 0", "parent closed"], child.stdout + child.stderr


def test_images_cannot_be_made_from_python():
    with pytest.raises(TypeError, match="come from a Loader"):
        lazyimg.Image()
    with pytest.raises(TypeError):
        lazyimg.Image(lib.lazyimg_image_retain(None) or 1)
