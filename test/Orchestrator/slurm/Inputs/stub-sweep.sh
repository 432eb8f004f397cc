#!/bin/sh
# stub-sweep.sh OUT WORK [q2-profile sweep options...]
# A Slurm sweep of the stand-in tools (stub.sh) into OUT; the stand-ins log
# to WORK/log and leave their marks in WORK. Runs q2-profile in its place
# (exec), so that a signal to this pid reaches q2-profile.
out=$1; work=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
exec q2-profile sweep --executor slurm --out "$out" \
  --molecule "h2=$here/stub.sh:15" \
  --phase-a "/bin/sh $here/stub.sh A {mode} {n_est} {n_trotter} {prog} $work/log $work" \
  --phase-bc "/bin/sh $here/stub.sh BC {mode} {n_est} {n_trotter} {report} $work/log $work" \
  --wall-s 120 --point-rss-mb 1000 --slurm-poll-s 0.3 --no-progress "$@"
