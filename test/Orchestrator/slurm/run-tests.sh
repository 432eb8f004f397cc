#!/bin/sh
# run-tests.sh CLUSTER_DIR LIT TEST_BUILD_DIR
# The ctest test `slurm-sweeps`: the lit tests of this directory against
# the cluster that `cluster.sh start CLUSTER_DIR` (the ctest fixture)
# started, one at a time (one of them fails the node on purpose). Exit 77
# (ctest: skipped) with the reason when Slurm could not start here.
dir=$1; lit=$2; tests=$3
if [ ! -f "$dir/slurm.conf" ] || [ -f "$dir/unavailable" ]; then
  echo "slurm-sweeps: SKIPPED: Slurm could not start on this machine:" \
    "$(cat "$dir/unavailable" 2>/dev/null || echo "no cluster in $dir")"
  exit 77
fi
Q2_SLURM_CLUSTER=$dir exec "$lit" -sv -j 1 "$tests" --filter 'Orchestrator/slurm/'
