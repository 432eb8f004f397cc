#!/usr/bin/env python3
"""q2.profiling against the original q2m3 profiler: the full H2 grid in both
modes and three H3O+ points, every run isolated in its own process.

  PYTHONPATH=build/python /usr/bin/python3 benchmarks/python/q2m3_profiling.py
      [--h3o 2x1,2x3,3x3] [--repeat 1] [--csv out.csv]

For each point and mode, q2.profiling.orchestrator.run_both_modes runs one
point of the sweep engine per mode (q2-qpe, then a fresh interpreter:
import, Hamiltonian, compile, 5 calls) and watches it from the parent.
Printed per run: the point's wall time (as the engine saw it), the
compile's own wall time (six stages), and the peak RSS (the kernel's VmHWM
of the point's processes, decimal MB; most of it is the interpreter, NumPy
and the mapped libMLIR/libLLVM) and the C/C++ heap peak
of the point (sampled, "heap MB"); then the figures the original's documentation and issue give
for the same runs (H2 dynamic: about 24 s and up to about 21 GB; H3O+:
beyond 32 GB, out of memory) and the ratio. With --repeat N each point runs
N times and the median is printed (the machine may be shared: medians).
"""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "build", "python"))

from q2.profiling.orchestrator import H2_SWEEP_GRID, run_both_modes  # noqa

# The original's figures (q2m3 documentation and issue reports).
ORIGINAL = {
    ("h2", "dynamic"): (24.0, 21.0 * 1024, "~24 s, up to ~21 GB"),
    ("h3o", "dynamic"): (None, 32.0 * 1024, "> 32 GB (out of memory)"),
    ("h3o", "fixed"): (None, 32.0 * 1024, "> 32 GB (out of memory)"),
}


def grid(text):
    return [tuple(int(x) for x in p.split("x")) for p in text.split(",")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--h3o", default="2x1,2x3,3x3", type=grid)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--csv", help="also write summary.csv of all runs here")
    a = ap.parse_args()
    points = [("h2", e, t) for e, t in H2_SWEEP_GRID] + \
        [("h3o", e, t) for e, t in a.h3o]
    print(f"{'molecule':8} {'point':>6} {'mode':8} {'wall s':>7} "
          f"{'compile s':>9} {'peak MB':>8} {'heap MB':>8} {'prob_sum':>9}"
          "   original")
    all_results, t_all = [], time.perf_counter()
    worst = {}
    for mol, e, t in points:
        runs = {"fixed": [], "dynamic": []}
        for _ in range(a.repeat):
            rf, rd, pf, pd_ = run_both_modes(mol, e, t)
            for r, p in ((rf, pf), (rd, pd_)):
                if r.error:
                    print(f"{mol:8} {e}x{t:<4} {r.mode:8} FAILED: "
                          f"{r.error.splitlines()[0]}")
                    continue
                runs[r.mode].append((p["wall_s"], r.compile_s,
                                     p["peak_hwm_mb"], r.prob_sum,
                                     r.heap_peak_mb))
                all_results.append(r)
        for mode, rs in runs.items():
            if not rs:
                continue
            wall = statistics.median(x[0] for x in rs)
            comp = statistics.median(x[1] for x in rs)
            peak = statistics.median(x[2] for x in rs)
            orig = ORIGINAL.get((mol, mode))
            note = ""
            if orig:
                ow, om, text = orig
                note = text + " -> " + ", ".join(filter(None, [
                    f"{ow / wall:.0f}x faster" if ow else "",
                    f"{om / peak:.0f}x less memory" if om else ""]))
            w = worst.setdefault((mol, mode), [0.0, 0.0])
            w[0], w[1] = max(w[0], wall), max(w[1], peak)
            heap = statistics.median(x[4] for x in rs)
            print(f"{mol:8} {e}x{t:<4} {mode:8} {wall:7.2f} {comp:9.4f} "
                  f"{peak:8.1f} {heap:8.1f} {rs[-1][3]:9.6f}   {note}")
    total = time.perf_counter() - t_all
    print(f"\n{len(all_results)} runs in {total:.1f} s (wall, sequential, "
          "one process per run)")
    for (mol, mode), (w, p) in sorted(worst.items()):
        print(f"worst {mol:4} {mode:8}: {w:6.2f} s, {p:7.1f} MB")
    if a.csv:
        from q2.profiling.orchestrator import write_summary_csv
        print("summary:", write_summary_csv(all_results, a.csv))


if __name__ == "__main__":
    main()
