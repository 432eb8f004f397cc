#!/usr/bin/env bash
# Installs what is missing, builds everything and runs every test (lit +
# GoogleTest) through ctest. Exit status is non-zero when any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
BUILD_DIR="${Q2_BUILD_DIR:-build}"
cmake --build "$BUILD_DIR"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)"
