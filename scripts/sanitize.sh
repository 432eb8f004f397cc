#!/usr/bin/env bash
# The whole test suite (lit + GoogleTest, through ctest) on a build of our
# code with clang-22 -fsanitize=address,undefined, in build-asan/.
#
#   scripts/sanitize.sh [ctest arguments...]     e.g. -R lit, -E Psi4
#
# MLIR/LLVM stay Debian's uninstrumented shared libraries; see
# docs/reliability.md for the sanitizer options and what they mean. Exit
# status is ctest's. Not part of CI (scripts/test.sh). Environment:
#   Q2_ASAN_BUILD_DIR  build directory (default build-asan)
#   Q2_JOBS            ninja and ctest jobs (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${Q2_ASAN_BUILD_DIR:-build-asan}"
JOBS="${Q2_JOBS:-2}"

Q2_SETUP_NO_CONFIGURE=1 bash scripts/setup.sh
if ! command -v clang++-22 >/dev/null ||
   ! dpkg-query -W -f='${Status}' libclang-rt-22-dev 2>/dev/null |
     grep -q "install ok installed"; then
  echo "sanitize: installing clang-22 libclang-rt-22-dev"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
    --no-install-recommends clang-22 libclang-rt-22-dev >/dev/null
fi

CC=clang-22 CXX=clang++-22 cmake -S . -B "$BUILD_DIR" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  "-DCMAKE_C_FLAGS_RELEASE=-O1 -gline-tables-only -DNDEBUG" \
  "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -gline-tables-only -DNDEBUG" \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DQ2_SANITIZE=ON -DQ2_BUILD_TESTS=ON -DQ2_BUILD_BENCHMARKS=OFF >/dev/null
nice -n 5 ninja -C "$BUILD_DIR" -j "$JOBS"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_odr_violation=0:allocator_may_return_null=1:allow_user_poisoning=0:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/fuzz/lsan.supp}"
nice -n 5 ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" "$@"
