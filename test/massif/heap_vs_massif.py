#!/usr/bin/env python3
"""q2-opt's lifetime heap peak against valgrind massif's, for one command.

Compiles the H2 example at -O0 with --profile-stages --report (Phase C off)
twice: natively, where q2-opt counts its heap with its own allocator
interposer (the report's lifetime_heap_peak_bytes, heap_exact true), and
under `valgrind --tool=massif`, whose allocator replaces q2-opt's
interposer (--soname-synonyms=somalloc=NONE: the malloc family defined in
the executable; that run's report says heap_exact false) and which records
the peak of mem_heap_B (requested bytes of live blocks, the figure q2-opt
counts) exactly (--peak-inaccuracy=0). The two must agree within
--tolerance (3 %).

Exit 77 (ctest: skipped) with a message when valgrind is not installed.

Usage: heap_vs_massif.py --bin DIR --work DIR --examples DIR [--tolerance F]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys


def run(cmd, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, **kw)
    if p.returncode != 0:
        sys.exit("command failed (%d): %s\n%s%s" % (
            p.returncode, " ".join(cmd), p.stdout[-2000:], p.stderr[-2000:]))
    return p.stdout


def massif_peak(path):
    """Highest mem_heap_B over the snapshots of a massif.out file."""
    peak = None
    with open(path) as f:
        for line in f:
            m = re.match(r"mem_heap_B=(\d+)", line)
            if m:
                peak = max(peak or 0, int(m.group(1)))
    if peak is None:
        sys.exit("%s: no mem_heap_B snapshot" % path)
    return peak


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--examples", required=True)
    ap.add_argument("--tolerance", type=float, default=0.03)
    a = ap.parse_args()
    valgrind = shutil.which("valgrind")
    if not valgrind:
        print("heap-massif: skipped: valgrind is not installed "
              "(scripts/setup.sh installs it)")
        return 77
    os.makedirs(a.work, exist_ok=True)
    program = os.path.join(a.work, "h2.mlir")
    run([os.path.join(a.bin, "q2-qpe"),
         os.path.join(a.examples, "hamiltonians", "h2_0.7414.FCIDUMP"),
         "--n-est", "4", "--n-trotter", "2", "-o", program])
    report = os.path.join(a.work, "r.json")
    cmd = [os.path.join(a.bin, "q2-opt"), "--profile-stages", "-O0",
           "--run", "0", program, "-o", os.path.join(a.work, "h2.o"),
           "--report", report]

    run(cmd)
    r = json.load(open(report))
    if r["heap_exact"] is not True:
        sys.exit("q2-opt did not count its heap exactly (heap_exact false)")
    ours = r["lifetime_heap_peak_bytes"]

    out = os.path.join(a.work, "massif.out")
    run([valgrind, "--tool=massif", "--soname-synonyms=somalloc=NONE",
         "--peak-inaccuracy=0.0", "--depth=1", "--threshold=100",
         "--detailed-freq=1000000", "--max-snapshots=100",
         "--massif-out-file=" + out] + cmd)
    theirs = massif_peak(out)
    if json.load(open(report))["heap_exact"] is not False:
        sys.exit("under massif the interposer still counted: massif did not "
                 "replace q2-opt's malloc")

    diff = (ours - theirs) / theirs
    print("q2-opt lifetime heap peak %d bytes, massif peak mem_heap_B %d: "
          "%+.2f %% (tolerance %.1f %%)" % (ours, theirs,
                                            100 * diff, 100 * a.tolerance))
    if abs(diff) > a.tolerance:
        print("FAIL: the heap peaks differ by more than the tolerance")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
