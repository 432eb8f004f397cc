"""The package installs into a venv from the build tree (docs/python.md)."""
import os
import shutil
import subprocess
import sys

import pytest

import q2


def test_pip_install_into_venv(tmp_path, h2_path):
    pytest.importorskip("ensurepip")
    pkg_root = os.path.dirname(os.path.dirname(q2.__file__))  # build/python
    if not os.path.exists(os.path.join(pkg_root, "pyproject.toml")):
        pytest.skip("q2 is not imported from a build tree")
    # A copy, so that setuptools' build/ and egg-info stay out of the build.
    src = tmp_path / "src"
    shutil.copytree(pkg_root, src,
                    ignore=shutil.ignore_patterns("CMakeFiles", "__pycache__",
                                                  "*.cmake", "build",
                                                  "*.egg-info"))
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
    subprocess.run([py, "-m", "pip", "install", "-q", "--no-build-isolation",
                    "--no-index", "--no-deps", "--disable-pip-version-check",
                    str(src)], check=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if "Q2_ASAN_PRELOAD" in env:  # sanitizer build: see conftest.py
        env["LD_PRELOAD"] = env["Q2_ASAN_PRELOAD"]
    out = subprocess.run(
        [py, "-c", "import q2, sys; r = q2.compile(sys.argv[1], n_est=2); "
                   "print(q2.__file__); print(r()[0].size)", h2_path],
        check=True, capture_output=True, text=True, env=env,
        cwd=str(tmp_path)).stdout.split()
    assert out[0].startswith(str(venv)) and out[1] == "4"
