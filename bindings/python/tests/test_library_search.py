"""Finding liblazyimg: the package's own copy first, then LAZYIMG_LIBRARY,
then the dynamic loader's search; every failure an ImportError saying what
to do. Each case runs `import lazyimg` from the source tree (also when the
run tests an installed package) in a fresh interpreter."""
import os
import shutil
import subprocess
import sys

import pytest

import lazyimg
from lazyimg import _library
from conftest import BINDING

PROBE = "import lazyimg; print(lazyimg.version(), lazyimg.library_path)"


def run_probe(env):
    env = dict(env, PYTHONPATH=BINDING)
    return subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=60)


def clean_environment(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("LAZYIMG_LIBRARY", "LD_LIBRARY_PATH")}
    return dict(env, **extra)


def build_library(tmp_path, name, source, *link):
    """A shared library made from C `source` (a stand-in for a broken one)."""
    (tmp_path / f"{name}.c").write_text(source)
    out = tmp_path / name
    subprocess.run([os.environ.get("CC", "cc"), "-shared", "-fPIC", "-o", str(out), str(tmp_path / f"{name}.c"),
                    *link], check=True)
    return out


def stub_source(version_number):
    """Every function of the binding's table, doing nothing, and a version."""
    lines = [f"unsigned lazyimg_version_number(void) {{ return {version_number}; }}",
             'const char *lazyimg_version_string(void) { return "stub"; }']
    lines += [f"void {name}(void) {{}}" for name in _library.PROTOTYPES if "version" not in name]
    return "\n".join(lines) + "\n"


def copy_library(directory):
    """The liblazyimg file this run loaded, copied into `directory`, with
    the libraries a wheel vendors beside it ($ORIGIN/../lazyimg.libs)."""
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copy(lazyimg.library_path, directory / "liblazyimg.so.0")
    vendored = os.path.join(os.path.dirname(lazyimg.library_path), "..", "lazyimg.libs")
    if os.path.isdir(vendored):
        shutil.copytree(vendored, directory.parent / "lazyimg.libs", dirs_exist_ok=True)
    return directory / "liblazyimg.so.0"


def test_found_on_ld_library_path_by_its_soname(tmp_path):
    library = copy_library(tmp_path / "lib")
    probe = run_probe(clean_environment(LD_LIBRARY_PATH=str(library.parent)))
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.split() == [lazyimg.version(), str(library)]


def test_the_packages_own_copy_comes_before_lazyimg_library(tmp_path):
    package = tmp_path / "site" / "lazyimg"
    shutil.copytree(os.path.dirname(lazyimg.__file__), package, ignore=shutil.ignore_patterns("__pycache__"))
    copy_library(package)
    env = clean_environment(LAZYIMG_LIBRARY="/nonexistent/liblazyimg.so.0", PYTHONPATH=str(package.parent))
    probe = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=60)
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.split()[1] == os.path.realpath(package / "liblazyimg.so.0")


def test_a_wrong_lazyimg_library_is_an_import_error_naming_it_and_what_to_do(tmp_path):
    (tmp_path / "not-a-library.so").write_text("text")
    for path in ("/nonexistent/liblazyimg.so.0", str(tmp_path / "not-a-library.so")):
        probe = run_probe(clean_environment(LAZYIMG_LIBRARY=path))
        assert "ImportError: cannot load liblazyimg (LAZYIMG_LIBRARY: " + path in probe.stderr, probe.stderr
        assert "point LAZYIMG_LIBRARY at a liblazyimg.so.0" in probe.stderr and "OSError" not in probe.stderr


def test_a_missing_dependency_is_an_import_error_naming_it(tmp_path):
    dependency = build_library(tmp_path, "libgone.so.1", "int gone(void) { return 1; }\n", "-Wl,-soname,libgone.so.1")
    library = build_library(tmp_path, "liblazyimg.so.0", stub_source(lazyimg.constants.VERSION_NUMBER),
                            "-Wl,--no-as-needed", f"-L{tmp_path}", "-l:libgone.so.1", f"-Wl,-rpath,{tmp_path}")
    dependency.unlink()
    probe = run_probe(clean_environment(LAZYIMG_LIBRARY=str(library)))
    assert "ImportError: liblazyimg (LAZYIMG_LIBRARY: " in probe.stderr, probe.stderr
    assert "needs libgone.so.1, which is not installed" in probe.stderr and "self-contained wheel" in probe.stderr


def test_not_found_anywhere_is_an_import_error_with_the_ways_to_get_it(tmp_path):
    probe = run_probe(clean_environment(LD_LIBRARY_PATH=str(tmp_path)) | {"LAZYIMG_LIBRARY": ""})
    if probe.returncode == 0:
        pytest.skip(f"liblazyimg is installed on this system: {probe.stdout}")
    assert "ImportError: liblazyimg.so.0 not found: install the self-contained wheel" in probe.stderr, probe.stderr
    assert "LAZYIMG_LIBRARY" in probe.stderr


@pytest.mark.parametrize("version", [lazyimg.constants.VERSION_NUMBER - 1, 1000000 + lazyimg.constants.VERSION_NUMBER])
def test_an_older_library_or_another_major_version_is_an_import_error(tmp_path, version):
    library = build_library(tmp_path, "liblazyimg.so.0", stub_source(version))
    probe = run_probe(clean_environment(LAZYIMG_LIBRARY=str(library)))
    assert "ImportError: liblazyimg stub (LAZYIMG_LIBRARY: " in probe.stderr, probe.stderr
    assert "does not match this binding" in probe.stderr


def test_a_library_missing_a_function_is_an_import_error_naming_it(tmp_path):
    source = stub_source(lazyimg.constants.VERSION_NUMBER).replace("void lazyimg_session_destroy(void) {}\n", "")
    library = build_library(tmp_path, "liblazyimg.so.0", source)
    probe = run_probe(clean_environment(LAZYIMG_LIBRARY=str(library)))
    assert "does not export lazyimg_session_destroy: the library is older than this binding" in probe.stderr, \
        probe.stderr


def test_where_the_library_came_from_is_what_this_run_expects():
    """make check-python's installed runs say which copy must be loaded."""
    expected = os.environ.get("LAZYIMG_EXPECT_LIBRARY")
    if not expected:
        pytest.skip("LAZYIMG_EXPECT_LIBRARY is not set")
    assert _library.found_by == expected, lazyimg.library_path
