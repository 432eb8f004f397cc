#!/usr/bin/env python3
"""Per-call overhead of the Python module over the C++ call.

  PYTHONPATH=build/python /usr/bin/python3 benchmarks/python/call_overhead.py
      [--n-est 2] [--n-trotter 1] [--power time] [--calls 1000] [--rounds 7]

Compiles H2 (examples/hamiltonians/h2_0.7414.FCIDUMP, dynamic mode) once with
q2.compile and, in the same process on the same circuit, alternates rounds
of `--calls` calls timed in C++ (Circuit::callInto around each call, as
bench-call-loop times them) and rounds timed from Python around
`circuit(coeffs)` (argument conversion, the NumPy result array, GIL release,
decoding, the returned tuple). Prints the median per-call time of each (the
median over rounds of the per-round medians) and their difference. Target
(issue 15): difference <= 10 us for H2. A small program (n_est 2, one
Trotter step, ~25 us per call) by default, so that the call itself is short
and the difference is not lost in the call's own noise (on a loaded machine
the medians of 0.1-0.4 ms calls wander by several us from round to round;
`--n-est 8 --n-trotter 10 --power repeat` is the Phase C H2 program).

Also prints the RSS after call 10 and after the last call of a 1000-call
Python loop (target: growth < 1 MB).
"""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "build", "python"))

import numpy as np  # noqa: E402
import q2  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ham", default=os.path.join(
        ROOT, "examples", "hamiltonians", "h2_0.7414.FCIDUMP"))
    ap.add_argument("--n-est", type=int, default=2)
    ap.add_argument("--n-trotter", type=int, default=1)
    ap.add_argument("--power", default="time", choices=["time", "repeat"])
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--threads", type=int, default=1,
                    help="runtime kernel threads (default 1: no thread "
                         "hand-off in either measurement)")
    args = ap.parse_args()
    if args.rounds < 5:
        sys.exit("call_overhead: --rounds must be >= 5")

    t0 = time.perf_counter()
    circuit = q2.compile(args.ham, n_est=args.n_est, n_trotter=args.n_trotter,
                         mode="dynamic", power=args.power, profile=False)
    compile_s = time.perf_counter() - t0
    circuit.circuit.threads = args.threads
    md = circuit.metadata
    coeffs = np.array(circuit.circuit.default_coeffs, dtype=np.float64)
    rng = np.random.default_rng(1)
    print(f"H2: {md.n_system}+{md.n_est} qubits, {md.n_terms} terms, "
          f"n_trotter {md.n_trotter}; compiled in {compile_s:.3f} s; "
          f"{args.rounds} rounds x {args.calls} calls each, "
          f"{args.threads} runtime thread(s)")

    native = circuit.circuit
    cpp_rounds, py_rounds = [], []
    perf = time.perf_counter_ns
    block = 50  # C++ and Python alternate in blocks: drift hits both alike
    for r in range(args.rounds + 1):  # round 0 warms up, not counted
        c = coeffs * (1 + 1e-3 * rng.standard_normal(coeffs.shape))
        cpp, py = [], []
        for _ in range(max(1, args.calls // block)):
            cpp += native.time_calls_cpp(block, c)
            for i in range(block):
                t = perf()
                circuit(c)
                py.append((perf() - t) * 1e-9)
        if r:
            cpp_rounds.append(statistics.median(cpp))
            py_rounds.append(statistics.median(py))

    cpp_us = statistics.median(cpp_rounds) * 1e6
    py_us = statistics.median(py_rounds) * 1e6
    print("C++    per call: median %9.2f us  (round medians: %s)" % (
        cpp_us, " ".join("%.2f" % (x * 1e6) for x in cpp_rounds)))
    print("Python per call: median %9.2f us  (round medians: %s)" % (
        py_us, " ".join("%.2f" % (x * 1e6) for x in py_rounds)))
    diff = py_us - cpp_us
    print("overhead of the Python call: %.2f us per call (target <= 10 us) %s"
          % (diff, "PASS" if diff <= 10 else "FAIL"))

    # RSS of a 1000-call loop with new coefficients each call.
    for i in range(10):
        circuit(coeffs)
    rss10 = q2.read_proc_status().vm_rss_bytes
    for i in range(1000):
        circuit(coeffs * (1 + 1e-4 * (i % 7)))
    rss_end = q2.read_proc_status().vm_rss_bytes
    growth = (rss_end - rss10) / 1e6
    print("RSS after call 10 %.2f MB, after call 1010 %.2f MB: growth %.3f MB "
          "(target < 1 MB) %s" % (rss10 / 1e6, rss_end / 1e6, growth,
                                  "PASS" if growth < 1 else "FAIL"))
    return 0 if diff <= 10 and growth < 1 else 1


if __name__ == "__main__":
    sys.exit(main())
