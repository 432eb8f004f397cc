#!/bin/sh
# Stand-in for q2-qpe (phase A) and q2-opt (phase B+C) in sweep tests.
# stub.sh PHASE MODE N_EST N_TROTTER OUTFILE LOG
phase=$1; mode=$2; e=$3; t=$4; out=$5; log=$6
echo "$phase $mode-e$e-t$t" >> "$log"
if [ "$phase" = A ]; then echo "module {}" > "$out"; exit 0; fi
case "$e,$t" in
  3,3) exit 7;;
  4,10) sleep 30;;
esac
# A valid q2.profile/3 report, written by q2-test-report (bin/, in PATH) with
# the report library. Stage records as in docs/report.md; IR grows with the
# point like in the real pipeline. compile_s is the sum over the compile
# stages only: 2 + e*t (4 for 2x1), not Input (0.5) nor Execute (10).
exec q2-test-report "$out" "$mode" "$e" "$t" 15 \
  Input:input:0.5:1000 \
  Bufferization:compile:2:$((3000 * e)) \
  LLVMIR:compile:$((e * t)):$((9000 * e * t)) \
  Execute:run:10
