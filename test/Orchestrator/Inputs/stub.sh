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
# IR grows with the point in the stand-in report, like the real pipeline.
# Stage records as in docs/profiling-api.md (name, wall_s, ir.bytes).
printf '{"schema":"q2.profile/1","metadata":{"n_terms":15},"mode":"%s","stages":[{"name":"Input","wall_s":0.5,"ir":{"bytes":%d}},{"name":"Bufferization","wall_s":1.5,"ir":{"bytes":%d}},{"name":"LLVMIR","wall_s":%d,"ir":{"bytes":%d}}]}\n' \
  "$mode" 1000 $((3000 * e)) $((e * t)) $((9000 * e * t)) > "$out"
