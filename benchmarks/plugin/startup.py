#!/usr/bin/env python3
"""Start-up cost of the q2 plugin in stock mlir-opt-22.

Runs mlir-opt-22 on a tiny quantum input with and without the plugin (the
"without" run parses the same module with quantum ops in generic form and
--allow-unregistered-dialect, so both do the same parsing work), interleaved,
and prints the medians and the difference. Target: <= 20 ms added.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

TINY = """func.func @f(%q: !quantum.bit) -> !quantum.bit {
  %a = quantum.custom "H"() %q : !quantum.bit
  return %a : !quantum.bit
}
"""
TINY_GENERIC = """func.func @f(%q: !quantum.bit) -> !quantum.bit {
  %a = "quantum.custom"(%q) <{gate_name = "H", operandSegmentSizes = array<i32: 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0>}> : (!quantum.bit) -> !quantum.bit
  return %a : !quantum.bit
}
"""


def run(cmd):
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--plugin", default="build/lib/Q2Plugin.so")
    ap.add_argument("--mlir-opt", default="/usr/lib/llvm-22/bin/mlir-opt")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--budget-ms", type=float, default=20.0)
    args = ap.parse_args()
    if args.runs < 10:
        sys.exit("startup.py: --runs must be >= 10")
    if not os.path.exists(args.plugin):
        sys.exit(f"startup.py: plugin not found: {args.plugin} (build first)")
    with tempfile.TemporaryDirectory() as d:
        typed = os.path.join(d, "tiny.mlir")
        generic = os.path.join(d, "tiny-generic.mlir")
        open(typed, "w").write(TINY)
        open(generic, "w").write(TINY_GENERIC)
        base = [args.mlir_opt, "--allow-unregistered-dialect", generic]
        plug = [args.mlir_opt, f"--load-dialect-plugin={args.plugin}",
                f"--load-pass-plugin={args.plugin}", typed]
        run(base), run(plug)  # warm the page cache
        without, with_ = [], []
        for _ in range(args.runs):
            without.append(run(base))
            with_.append(run(plug))
    m0, m1 = statistics.median(without), statistics.median(with_)
    added = (m1 - m0) * 1e3
    print(f"mlir-opt-22 start-up, median of {args.runs} runs each:")
    print(f"  without plugin: {m0 * 1e3:8.2f} ms")
    print(f"  with plugin:    {m1 * 1e3:8.2f} ms")
    print(f"  added:          {added:8.2f} ms (target <= {args.budget_ms:g} ms)"
          f"  ratio {m1 / m0:.3f}")
    return 0 if added <= args.budget_ms else 1


if __name__ == "__main__":
    sys.exit(main())
