#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang-22 and
# -fsanitize=fuzzer,address,undefined in build-fuzz/ (only the targets and
# the libraries they need), then runs each for a bounded time.
#
#   scripts/fuzz.sh [seconds-per-target] [target...]
#
# Targets (default: all): fcidump hamiltonian-json openfermion coeffs report
# results qpe-metadata quantum-dialect object gate-table-power. Seeds are read from
# fuzz/corpus/<target>/ (never modified); what the fuzzer finds goes to
# build-fuzz/fuzz-work/<target>/, crash inputs to
# build-fuzz/fuzz-artifacts/, logs to build-fuzz/fuzz-logs/. Exit status 1
# when any target crashed (or a sanitizer fired). Not part of CI
# (scripts/test.sh): see docs/reliability.md. Environment:
#   Q2_FUZZ_BUILD_DIR  build directory (default build-fuzz)
#   Q2_JOBS            ninja jobs (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."

SECS="${1:-60}"
shift || true
ALL=(fcidump hamiltonian-json openfermion coeffs report results qpe-metadata
     quantum-dialect object gate-table-power)
TARGETS=("$@")
((${#TARGETS[@]})) || TARGETS=("${ALL[@]}")
BUILD_DIR="${Q2_FUZZ_BUILD_DIR:-build-fuzz}"
JOBS="${Q2_JOBS:-2}"

source scripts/clang-build.sh
q2_clang_configure fuzz "$BUILD_DIR" -DQ2_FUZZ=ON -DQ2_BUILD_BENCHMARKS=OFF
nice -n 5 ninja -C "$BUILD_DIR" -j "$JOBS" \
  $(printf 'q2-fuzz-%s ' "${TARGETS[@]}")

# MLIR/LLVM are Debian's uninstrumented shared libraries: see
# docs/reliability.md for why these options are set.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_odr_violation=0:allocator_may_return_null=1:allow_user_poisoning=0:use_sigaltstack=0:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/fuzz/lsan.supp}"

mkdir -p "$BUILD_DIR/fuzz-logs" "$BUILD_DIR/fuzz-artifacts"
failed=()
printf '%-18s %8s %10s %8s  %s\n' target seconds runs corpus result
for t in "${TARGETS[@]}"; do
  work="$BUILD_DIR/fuzz-work/$t"
  log="$BUILD_DIR/fuzz-logs/$t.log"
  mkdir -p "$work"
  start=$(date +%s)
  rc=0
  nice -n 5 "$BUILD_DIR/bin/q2-fuzz-$t" "$work" "fuzz/corpus/$t" \
    -max_total_time="$SECS" -timeout=30 -rss_limit_mb=4096 \
    -malloc_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$BUILD_DIR/fuzz-artifacts/$t-" >"$log" 2>&1 || rc=$?
  took=$(($(date +%s) - start))
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" |
         awk '{s+=$2} END {print s+0}')
  corpus=$(find "$work" -type f | wc -l)
  if [ "$rc" -eq 0 ]; then
    result=clean
  else
    result="CRASH (exit $rc, see $log)"
    failed+=("$t")
  fi
  printf '%-18s %8s %10s %8s  %s\n' "$t" "$took" "$runs" "$corpus" "$result"
done
if ((${#failed[@]})); then
  echo "fuzz: crashes in: ${failed[*]}" >&2
  exit 1
fi
