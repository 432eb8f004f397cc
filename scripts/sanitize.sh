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

source scripts/clang-build.sh
q2_clang_configure sanitize "$BUILD_DIR" -DQ2_SANITIZE=ON -DQ2_BUILD_TESTS=ON -DQ2_BUILD_BENCHMARKS=OFF
nice -n 5 ninja -C "$BUILD_DIR" -j "$JOBS"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_odr_violation=0:allocator_may_return_null=1:allow_user_poisoning=0:use_sigaltstack=0:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/fuzz/lsan.supp}"
nice -n 5 ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" "$@"
