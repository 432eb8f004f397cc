"""`pip install build/python` into a venv (docs/python.md, docs/install.md):
the build tree stays as it was, and the installed package is self-contained
(its own copies of the tools, the runtime and the examples)."""
import os
import subprocess
import sys

import pytest

import q2


def _tree(root):
    out = set()
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x != "__pycache__"]
        out.update(os.path.relpath(os.path.join(d, f), root)
                   for f in dirs + files)
    return out


def test_pip_install_into_venv(tmp_path, h2_path):
    pytest.importorskip("ensurepip")
    pkg_root = os.path.dirname(os.path.dirname(q2.__file__))  # build/python
    if not os.path.exists(os.path.join(pkg_root, "pyproject.toml")):
        pytest.skip("q2 is not imported from a build tree")
    venv = tmp_path / "venv"
    # Without its own pip (ensurepip takes seconds): the system's pip,
    # visible through --system-site-packages, installs into the venv.
    if subprocess.run([sys.executable, "-m", "venv", "--system-site-packages",
                       "--without-pip", str(venv)]).returncode:
        pytest.skip("no venv module (Debian: python3-venv)")
    py = str(venv / "bin" / "python")
    if subprocess.run([py, "-m", "pip", "--version"],
                      capture_output=True).returncode:
        pytest.skip("no pip for this interpreter (Debian: python3-pip)")
    before = _tree(pkg_root)
    # Straight from the build tree, as docs/python.md says.
    subprocess.run([py, "-m", "pip", "install", "-q", "--no-build-isolation",
                    "--no-index", "--no-deps", "--disable-pip-version-check",
                    pkg_root], check=True, cwd=str(tmp_path))
    # No setuptools build/ or q2.egg-info left in build/python.
    assert _tree(pkg_root) == before, _tree(pkg_root) ^ before

    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "Q2_BIN_DIR", "Q2_RUNTIME_LIB")}
    if "Q2_ASAN_PRELOAD" in env:  # sanitizer build: see conftest.py
        env["LD_PRELOAD"] = env["Q2_ASAN_PRELOAD"]
    script = r"""
import os, subprocess, sys
import q2
from q2 import _config as c
print(q2.__file__)
for p in (c.BIN_DIR + "/q2-opt", c.BIN_DIR + "/q2-qpe", c.BIN_DIR + "/q2-profile",
          c.RUNTIME_LIB, c.EXAMPLES_DIR + "/hamiltonians/h2_0.7414.FCIDUMP"):
    # Real files inside the venv, not links back into the build tree.
    assert p.startswith(sys.prefix) and os.path.isfile(p), p
    assert not os.path.islink(p), p
# Not the ASan preload of a sanitizer build: the tools carry their own.
subprocess.run([c.BIN_DIR + "/q2-qpe", sys.argv[1], "--info"], check=True,
               stdout=subprocess.DEVNULL,
               env={k: v for k, v in os.environ.items() if k != "LD_PRELOAD"})
r = q2.compile(sys.argv[1], n_est=2)
print(r()[0].size)
"""
    out = subprocess.run([py, "-c", script, h2_path], check=True,
                         capture_output=True, text=True, env=env,
                         cwd=str(tmp_path)).stdout.split()
    assert out[0].startswith(str(venv)) and out[1] == "4"
