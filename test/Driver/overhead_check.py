"""Checks that a profile's profiler_overhead_s is the time profiling cost
(issue 35 point 4; a ctest, `profiler-overhead`, run alone: RUN_SERIAL).

usage: overhead_check.py --bin DIR --work DIR [--norb N] [--rounds N]

Builds a random NORB N Hamiltonian's program (q2-random-fcidump N N/2 7,
q2-qpe --mode dynamic --n-est 8 --n-trotter 10 --order 2; N = 12: 29,737
terms, stage outputs of megabytes, where measuring the IR after each stage
is most of what profiling costs), then runs `q2-opt --qpe-pipeline` and
`q2-opt --profile-stages --run 0 --report R` in alternating order, N rounds
(default 11), and compares the median of the reports' profiler_overhead_s
with the difference between the fastest profiled and the fastest plain run,
in wall and in CPU time (user + sys of the child).

Prints the figures and both ratios, then "OK" when either is within
[0.5, 1.8] (in one of up to three attempts), else "MISMATCH" and exits 1. Either, because profiler_overhead_s
is wall time: on an idle machine the wall ratio is the right one; when the
cores are shared the figure grows with the waiting while the CPU difference
does not. Writing the report is not measuring and not in the figure, so the
ratio sits below 1 (0.57-1.33 over five runs at NORB 12 on the idle 2-core machine, most near 0.7). An accounting that leaves out the IR
metrics after each stage comes out near 0.1-0.3 on both (regression: the
report said 0.0005 s while profiling cost seconds).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--bin", required=True)
ap.add_argument("--work", required=True)
ap.add_argument("--norb", type=int, default=12)
ap.add_argument("--rounds", type=int, default=11)
a = ap.parse_args()

os.makedirs(a.work, exist_ok=True)
fci = os.path.join(a.work, "r.fcidump")
program = os.path.join(a.work, "r.mlir")
subprocess.run([os.path.join(a.bin, "q2-random-fcidump"), str(a.norb),
                str(a.norb // 2), "7", "-o", fci], check=True)
subprocess.run([os.path.join(a.bin, "q2-qpe"), fci, "--mode", "dynamic",
                "--n-est", "8", "--n-trotter", "10", "--order", "2", "-o",
                program], check=True, stderr=subprocess.DEVNULL)
q2opt = os.path.join(a.bin, "q2-opt")
obj = os.path.join(a.work, "out.o")
report = os.path.join(a.work, "overhead.json")
plain = [q2opt, "--qpe-pipeline", program, "-o", obj]
profiled = [q2opt, "--profile-stages", "--run", "0", program, "-o", obj,
            "--report", report]


def wall(cmd):
    """(wall s, CPU s) of one run."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    if code:
        sys.exit("failed (%d): %s\n%s" % (code, " ".join(cmd), err.decode()))
    return dt, ru.ru_utime + ru.ru_stime


def attempt():
    """(ratio to the wall difference, ratio to the CPU difference)."""
    walls = {"plain": [], "profiled": []}
    cpus = {"plain": [], "profiled": []}
    accounted = []
    for i in range(a.rounds):
        for k in (("profiled", "plain") if i % 2 else ("plain", "profiled")):
            w, c = wall(plain if k == "plain" else profiled)
            walls[k].append(w)
            cpus[k].append(c)
        accounted.append(
            json.load(open(report))["phase_b"]["profiler_overhead_s"])
    # The fastest run of each: on this machine a run's time scatters by
    # tens of percent, upwards (waiting, another process's cache misses),
    # so the minimum is the least noisy estimate of what the work costs.
    d = min(walls["profiled"]) - min(walls["plain"])
    c = min(cpus["profiled"]) - min(cpus["plain"])
    acc = statistics.median(accounted)
    rw = acc / d if d > 0 else float("inf")
    rc = acc / c if c > 0 else float("inf")
    print("profiler_overhead_s %.3f s (median), measured difference %.3f s "
          "wall, %.3f s CPU (fastest runs); ratios %.2f (wall), %.2f (CPU)"
          % (acc, d, c, rw, rc), flush=True)
    return 0.5 <= rw <= 1.8 or 0.5 <= rc <= 1.8


wall(plain)  # warm the page cache
# Up to three attempts: a background daemon waking up (the tests' Slurm
# cluster, a browser exiting) can swamp a 0.1 s difference for a whole
# attempt; a wrong accounting is out of range every time.
ok = any(attempt() for _ in range(3))
print("OK" if ok else "MISMATCH")
sys.exit(0 if ok else 1)
