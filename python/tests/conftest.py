"""Shared fixtures of the q2 Python tests (run by ctest as the `python`
test: PYTHONPATH=build/python /usr/bin/python3 -m pytest python/tests)."""
import os

import pytest

ROOT = os.environ.get("Q2_SOURCE_DIR") or os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
H2 = os.path.join(ROOT, "examples", "hamiltonians", "h2_0.7414.FCIDUMP")

# A sanitizer build (ctest sets Q2_ASAN and preloads the ASan runtime into
# this uninstrumented interpreter): the preload is in effect now; the tools
# the tests start are instrumented themselves and refuse a second runtime.
# Q2_ASAN_PRELOAD keeps it for tests that start another python3.
ASAN = os.environ.get("Q2_ASAN") == "1"
if ASAN and "LD_PRELOAD" in os.environ:
    os.environ["Q2_ASAN_PRELOAD"] = os.environ.pop("LD_PRELOAD")
    # Spawned interpreters (q2.profiling's isolated runs) import the module
    # too: start them through a wrapper that preloads the runtime again.
    import multiprocessing
    import sys
    import tempfile
    _wrapper = os.path.join(tempfile.mkdtemp(prefix="q2-asan-py-"), "python3")
    with open(_wrapper, "w") as _f:
        _f.write('#!/bin/sh\nLD_PRELOAD="$Q2_ASAN_PRELOAD" exec %s "$@"\n'
                 % sys.executable)
    os.chmod(_wrapper, 0o755)
    multiprocessing.set_executable(_wrapper)


@pytest.fixture(scope="session")
def h2_path():
    assert os.path.exists(H2), H2
    return H2


@pytest.fixture(scope="session")
def h2(h2_path):
    """H2 compiled once (dynamic, profiled), shared by the tests."""
    import q2
    return q2.compile(h2_path, n_est=4, n_trotter=2, mode="dynamic",
                      profile=True)


@pytest.fixture(scope="module")
def h2_report_file(h2, tmp_path_factory):
    """(directory, path): the H2 report written as a file, in a directory
    of the test module's own."""
    import json
    d = tmp_path_factory.mktemp("h2-report")
    path = d / "r.json"
    path.write_text(json.dumps(h2.report.to_dict()))
    return d, path


@pytest.fixture(scope="session", autouse=True)
def molecule_cache(tmp_path_factory):
    """Hamiltonians built with psi4 go to a cache of this session (never the
    user's ~/.cache); spawned runs inherit it through the environment."""
    d = tmp_path_factory.mktemp("xdg-cache")
    old = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(d)
    yield d
    if old is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = old


def have_psi4():
    import shutil
    return shutil.which("psi4") is not None


# Tests that run psi4 (a molecule that is not bundled) are skipped, with
# this message, only where psi4 is not installed.
needs_psi4 = pytest.mark.skipif(
    not have_psi4(), reason="psi4 is not installed (Debian: apt-get install "
    "psi4); it builds the Hamiltonian of a molecule that is not bundled")
