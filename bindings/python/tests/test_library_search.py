"""Finding liblazyimg: LAZYIMG_LIBRARY, else the dynamic loader's search."""
import os
import subprocess
import sys

import pytest

BINDING = os.path.join(os.path.dirname(__file__), "..")
PROBE = "import lazyimg; print(lazyimg.version())"


def run_probe(env):
    env = dict(env, PYTHONPATH=BINDING)
    return subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True)


@pytest.fixture
def library_dir():
    """A directory holding liblazyimg.so.0 (the test command's build)."""
    path = os.environ.get("LAZYIMG_LIBRARY")
    if not path:
        pytest.skip("LAZYIMG_LIBRARY is not set: no known library directory to search")
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.exists(os.path.join(directory, "liblazyimg.so.0")):
        pytest.skip(f"{directory} has no liblazyimg.so.0")
    return directory


def test_found_on_ld_library_path_by_its_soname(library_dir):
    env = {k: v for k, v in os.environ.items() if k != "LAZYIMG_LIBRARY"}
    env["LD_LIBRARY_PATH"] = library_dir
    probe = run_probe(env)
    assert probe.returncode == 0, probe.stderr
    import lazyimg
    assert probe.stdout.strip() == lazyimg.version()


def test_a_wrong_lazyimg_library_is_an_error_naming_it():
    env = dict(os.environ, LAZYIMG_LIBRARY="/nonexistent/liblazyimg.so.0")
    probe = run_probe(env)
    assert probe.returncode != 0 and "/nonexistent/liblazyimg.so.0" in probe.stderr
