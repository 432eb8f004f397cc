#!/usr/bin/env python3
"""Speed-up of the compile cache (q2-opt --cache-dir): a hit skips Phase B.

For each example: the median of 5 cold compiles (fresh cache each time) vs
the median of 5 warm runs (same key), whole-process wall time, --run 0.
  python3 benchmarks/pipeline/cache_bench.py [--build build]
"""
import argparse, os, shutil, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def timed(cmd):
    t0 = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return time.perf_counter() - t0, out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    b = os.path.join(a.build, "bin")
    tmp = tempfile.mkdtemp(prefix="q2-cache-")
    try:
        for name in ("h2_0.7414", "h3o+_4e4o"):
            prog = os.path.join(tmp, name + ".mlir")
            subprocess.run([os.path.join(b, "q2-qpe"),
                            os.path.join(ROOT, "examples", "hamiltonians", name + ".FCIDUMP"),
                            "--n-est", "8", "--n-trotter", "10", "-o", prog], check=True)
            cold, warm = [], []
            for i in range(a.runs):
                cache = os.path.join(tmp, f"cold{i}")
                cmd = [os.path.join(b, "q2-opt"), "--qpe-pipeline", "--keep-native-pauli",
                       "--cache-dir", cache, prog, "-o", os.path.join(tmp, "o.o")]
                t, out = timed(cmd)
                assert "cache: miss" in out, out
                cold.append(t)
            for _ in range(a.runs):
                t, out = timed(cmd)
                assert "cache: hit" in out, out
                warm.append(t)
            c, w = statistics.median(cold), statistics.median(warm)
            print(f"{name}: miss {c:.3f} s, hit {w:.3f} s, speed-up {c / w:.1f}x "
                  f"(medians of {a.runs}, whole process)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
