#!/usr/bin/env bash
# Installs the Debian 12 packages q2-opt needs (only those missing) and
# configures a Ninja build in build/. python3-plotly ships the plotly.js the
# HTML report embeds (at build time); chromium-headless-shell runs the
# html-chromium test; valgrind the heap-massif test (test/massif).
# Idempotent; run as root (or via sudo).
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS=(libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools
      libeigen3-dev nlohmann-json3-dev libgtest-dev libbenchmark-dev
      ninja-build cmake g++ python3 python3-matplotlib parallel
      pybind11-dev python3-pybind11 python3-dev python3-numpy python3-pytest
      python3-pandas python3-pip python3-setuptools python3-venv psi4
      slurm-wlm munge libopenblas0-pthread python3-plotly chromium-headless-shell
      valgrind)
# libopenblas0-pthread: LAPACK's symmetric eigensolvers for the runtime's
# eigenphase path (dlopen'ed when present; Eigen's otherwise, 10x slower
# from 1024 states: docs/runtime-blocks.md).

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
fi

# Q2_SETUP_NO_CONFIGURE=1: packages only (scripts/fuzz.sh, sanitize.sh).
BUILD_DIR="${Q2_BUILD_DIR:-build}"
if [ -z "${Q2_SETUP_NO_CONFIGURE:-}" ] && [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DPython3_EXECUTABLE=/usr/bin/python3
fi
