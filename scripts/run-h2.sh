#!/usr/bin/env bash
# The main job: installs what is missing, builds, then compiles the bundled
# H2 example through q2-opt and shows what it costs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
BUILD_DIR="${Q2_BUILD_DIR:-build}"
cmake --build "$BUILD_DIR"
BIN="$BUILD_DIR/bin"

# Until the QPE generator and the pipeline land, the job parses, verifies
# and round-trips the hand-written H2 circuit, with MLIR's own timing.
"$BIN/q2-opt" examples/quantum/h2_trotter_step.mlir \
  --pass-pipeline='builtin.module(func.func(quantum-cancel-inverses,quantum-merge-rotations),canonicalize,cse)' \
  --mlir-timing
