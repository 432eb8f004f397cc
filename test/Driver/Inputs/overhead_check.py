"""Checks that a profile's profiler_overhead_s is the time profiling cost.

usage: overhead_check.py Q2OPT PROGRAM WORKDIR [--rounds N] [--extra FLAG..]

Runs `Q2OPT --qpe-pipeline PROGRAM` and `Q2OPT --profile-stages --run 0
PROGRAM --report R` in alternating order, N rounds (default 7), and
compares the median of the reports' profiler_overhead_s with the median
over rounds of the paired difference in whole-process wall time (the plain
run of the same round). Prints both and their ratio, then "OK" when the
ratio is within [0.5, 1.8] (on a loaded machine a paired difference scatters
by tens of percent; an accounting that leaves out the IR metrics after each
stage, most of the cost on this input, comes out near 0.1-0.3), else
"MISMATCH".
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("q2opt")
ap.add_argument("program")
ap.add_argument("workdir")
ap.add_argument("--rounds", type=int, default=7)
a = ap.parse_args()

obj = os.path.join(a.workdir, "out.o")
report = os.path.join(a.workdir, "overhead.json")
plain = [a.q2opt, "--qpe-pipeline", a.program, "-o", obj]
profiled = [a.q2opt, "--profile-stages", "--run", "0", a.program, "-o", obj,
            "--report", report]


def wall(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    if p.returncode:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd),
                                         p.stderr.decode()))
    return dt


wall(plain)  # warm the page cache
diffs, accounted = [], []
for i in range(a.rounds):
    if i % 2:
        tp = wall(profiled)
        t0 = wall(plain)
    else:
        t0 = wall(plain)
        tp = wall(profiled)
    diffs.append(tp - t0)
    accounted.append(json.load(open(report))["phase_b"]["profiler_overhead_s"])
d, acc = statistics.median(diffs), statistics.median(accounted)
ratio = acc / d if d > 0 else float("inf")
print("profiler_overhead_s %.3f s, measured difference %.3f s, ratio %.2f"
      % (acc, d, ratio))
print("OK" if 0.5 <= ratio <= 1.8 else "MISMATCH")
