#!/bin/sh
# Stand-in for q2-qpe (phase A) and q2-opt (phase B+C) in the Slurm tests.
# stub.sh PHASE MODE N_EST N_TROTTER OUTFILE LOG DIR
#   3x3  Phase B+C fails like a compile error (exit 7)
#   4x5  Phase B+C touches 300 MB and holds it (over a task's --mem=100M)
#   5x5  Phase B+C hangs the first time (DIR/hung-MODE marks it), after
#        publishing "<pid of the task's q2-profile> <own pid>" in DIR/pids-MODE
#   6x6  Phase B+C takes 4 s
#   else a valid q2.profile/3 report at once
phase=$1; mode=$2; e=$3; t=$4; out=$5; log=$6; dir=$7
echo "$phase $mode-e$e-t$t" >> "$log"
if [ "$phase" = A ]; then echo "module {}" > "$out"; exit 0; fi
case "$e,$t" in
  3,3) echo "error: failed to legalize operation 'quantum.custom'" >&2; exit 7;;
  4,5) exec q2-test-child alloc 300 60;;
  5,5) if [ ! -e "$dir/hung-$mode" ]; then
         touch "$dir/hung-$mode"
         echo "$PPID $$" > "$dir/pids-$mode.tmp"
         mv "$dir/pids-$mode.tmp" "$dir/pids-$mode"
         exec sleep 60
       fi;;
  6,6) sleep 4;;
esac
exec q2-test-report "$out" "$mode" "$e" "$t" 15 Input:input:0.5:1000 \
  LLVMIR:compile:1:9000 Execute:run:1
