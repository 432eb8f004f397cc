#!/usr/bin/env bash
# The main job: installs what is missing, builds, then
#  Phase A: q2-qpe turns the bundled H2 Hamiltonian into a QPE program with
#           the defaults (3 mHa resolution, Trotter steps from the error bound),
#  Phase B: q2-opt compiles it through the six stages, measuring each,
#  Phase C: the object is executed 5 times through the JIT; energy decoded.
# Outputs land in build/h2/: the report (JSON), a Chrome trace, each stage's IR.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
BUILD_DIR="${Q2_BUILD_DIR:-build}"
# Only what this script runs (not the tests, benchmarks or Python module):
# see docs/building.md.
cmake --build "$BUILD_DIR" --target q2-qpe q2-opt q2_runtime
BIN="$BUILD_DIR/bin"
OUT="$BUILD_DIR/h2"
mkdir -p "$OUT"

"$BIN/q2-qpe" examples/hamiltonians/h2_0.7414.FCIDUMP --info
"$BIN/q2-qpe" examples/hamiltonians/h2_0.7414.FCIDUMP \
  --mode dynamic -o "$OUT/h2_qpe.mlir"
echo
"$BIN/q2-opt" --profile-stages --keep-native-pauli --run 5 "$OUT/h2_qpe.mlir" \
  -o "$OUT/h2_qpe.o" --report "$OUT/report.json" --trace "$OUT/trace.json" \
  --ir-dir "$OUT/ir"
# Debian's python3-matplotlib (the plot is skipped, not failed, without it).
/usr/bin/python3 tools/q2-opt/plot_profile.py "$OUT/report.json" -o "$OUT/profile.png"
echo
echo "report: $OUT/report.json  trace (Perfetto): $OUT/trace.json  IR: $OUT/ir/"
echo "plot: $OUT/profile.png"
