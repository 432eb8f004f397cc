"""The child of an isolated q2.profiling point (Phase B+C of a point of the
sweep engine; see orchestrator.py): the three phases of one mode in this
process, with tracemalloc on, as q2m3's child runs them.

    python -c <boot> ROOT --molecule NAME --hamiltonian FILE --source S
        --n-system N --mode MODE --n-est E --n-trotter T --runs R
        --report REPORT --out RESULT.json [--ir-dir DIR]

Writes the compile's q2.profile/3 report to REPORT (what the engine reads)
and {"result": ProfileResult, "peak_smaps": ...} to RESULT.json, both
atomically. Exit code 0 when the point was profiled, 1 when it failed (the
result then carries the error), 2 for bad arguments.
"""
import argparse
import dataclasses
import json
import os
import sys
import tracemalloc


def _write_json(path, data):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(data, f)
    os.replace(tmp, path)


def main(argv):
    p = argparse.ArgumentParser(prog="q2.profiling._point")
    p.add_argument("--molecule", required=True)
    p.add_argument("--hamiltonian", required=True)
    p.add_argument("--source", default="file")
    p.add_argument("--n-system", type=int, default=0)
    p.add_argument("--mode", choices=("fixed", "dynamic"), required=True)
    p.add_argument("--n-est", type=int, required=True)
    p.add_argument("--n-trotter", type=int, required=True)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--report", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--ir-dir")
    a = p.parse_args(argv)

    tracemalloc.start()
    from .orchestrator import _run_point
    [(result, fn, tl)] = _run_point(
        a.molecule, a.n_system, lambda: (a.hamiltonian, a.source), a.n_est,
        a.n_trotter, [a.mode], a.ir_dir, a.runs, None)
    tracemalloc.stop()
    if fn is not None:
        fn.result.write_report(a.report)
    _write_json(a.out, {"result": dataclasses.asdict(result),
                        "peak_smaps": tl.peak_smaps if tl else {}})
    if result.error is not None:
        print(result.error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
