#!/usr/bin/env python3
"""What profiling costs, in one command (issue 35 points 3 and 4).

  1. q2-opt --profile-stages --run 0 against q2-opt --qpe-pipeline on random
     Hamiltonians (q2-random-fcidump NORB NORB/2 7, q2-qpe --mode dynamic
     --n-est 8 --n-trotter 10 --order 2): NORB 16 (94,849 terms, target
     <= 1.30) and NORB 12 (29,737 terms). Whole-process wall time (spawn to
     exit; the plain run reports no in-process times), paired rounds: each
     round runs both, in alternating order, and the verdict is the median
     of the per-round ratios. Also printed: process CPU ratio, the ratio of
     medians, and the report's profiler_overhead_s next to the measured
     difference (one more run with --report per round).
  2. The q2-profile pass in stock mlir-opt-22 on the upstream sparsifier
     pipeline of llvm-project's dense_output.mlir (test/Plugin/Inputs/
     llvm-project), with IR metrics (target <= 1.20) and without, against
     the plain pipeline (both load the plugin; --mlir-disable-threading on
     all sides, as q2-profile runs one thread). The verdict is on what issue
     35 measured: the whole mlir-opt process, spawn to exit, paired per
     round, median of the per-round ratios. (Its baseline, 1.03x without IR
     metrics, is a whole-process figure: any profiler that writes a report
     costs more than 3 % of a 10 ms pipeline in process.) Printed beside it
     for reading, and not judged: the in-process ratio from --mlir-timing,
     Total minus Parser and Output on both sides (what mlir-opt did between
     parsing and printing: the plain run's pass manager set-up, which no
     pass entry holds, is in it as q2-profile's is in its pass), which puts
     the pass's fixed costs (the report, the input's measure) against the
     pipeline alone. Each profiled variant's output is compared with the
     plain pipeline's first: a q2-profile that runs a different pipeline is
     reported, not timed.

With --instructions, section 2 also counts instructions with valgrind's
callgrind (one run each; the machine's load does not change them): the
q2-profile pass's runOnOperation against the plain run's PassManager::run.

With --sparse-copies N, section 2 runs on N copies of
benchmarks/profiling/Inputs/sparse-kernels.mlir instead (a larger program:
the pass's fixed costs weigh less).

Usage: profiler_cost.py [--bin DIR] [--runs N] [--sparse-runs N] [--sparse-copies N]
                        [--norbs 12,16] [--instructions]
Prints the load average; exit status 0 even when a target is missed (the
PASS/FAIL lines say so).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "common"))
import benchlib  # noqa: E402

SPARSE = os.path.join(benchlib.ROOT, "test", "Plugin", "Inputs",
                      "llvm-project", "dense_output.mlir")
KERNELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs",
                       "sparse-kernels.mlir")
MLIR_OPT = os.path.join(benchlib.LLVM_BIN, "mlir-opt")
SPARSIFIER = "sparsifier"


def q2opt_section(bindir, norb, runs):
    q2opt = benchlib.tool(os.path.dirname(bindir), "q2-opt")
    with tempfile.TemporaryDirectory(prefix="q2-cost-") as tmp:
        fci = os.path.join(tmp, "r.fcidump")
        benchlib.run_checked([benchlib.tool(os.path.dirname(bindir),
                                            "q2-random-fcidump"),
                              str(norb), str(norb // 2), "7", "-o", fci])
        prog = benchlib.qpe_program(
            benchlib.tool(os.path.dirname(bindir), "q2-qpe"), fci,
            os.path.join(tmp, "r.mlir"), power=None)
        terms = benchlib.qpe_info(benchlib.tool(os.path.dirname(bindir),
                                                "q2-qpe"), fci)["terms"]
        obj = os.path.join(tmp, "out.o")
        rep = os.path.join(tmp, "r.json")
        plain = [q2opt, "--qpe-pipeline", prog, "-o", obj]
        prof = [q2opt, "--profile-stages", "--run", "0", prog, "-o", obj]
        benchlib.run_wait4(plain)  # page cache
        walls = {"plain": [], "prof": []}
        cpus = {"plain": [], "prof": []}
        accounted, diffs = [], []
        for i in range(runs):
            order = ["plain", "prof"] if i % 2 == 0 else ["prof", "plain"]
            for k in order:
                w, c = benchlib.run_cpu(plain if k == "plain" else prof)
                walls[k].append(w)
                cpus[k].append(c)
            w, _ = benchlib.run_cpu(prof + ["--report", rep])
            accounted.append(json.load(open(rep))["phase_b"]
                             ["profiler_overhead_s"])
            diffs.append(walls["prof"][-1] - walls["plain"][-1])
        med = statistics.median
        paired = [p / q for p, q in zip(walls["prof"], walls["plain"])]
        cpu_paired = [p / q for p, q in zip(cpus["prof"], cpus["plain"])]
        r = med(paired)
        print("NORB %d (%d terms, %.1f MB program), %d paired rounds:"
              % (norb, terms, os.path.getsize(prog) / 1e6, runs))
        print("  plain %.2f s, --profile-stages --run 0 %.2f s (medians); "
              "ratio: paired %.3f (quartiles %s), of medians %.3f, "
              "CPU paired %.3f"
              % (med(walls["plain"]), med(walls["prof"]), r,
                 "/".join("%.2f" % x for x in quartiles(paired)),
                 med(walls["prof"]) / med(walls["plain"]), med(cpu_paired)))
        print("  profiler_overhead_s %.3f s (median) against a measured "
              "difference of %.3f s" % (med(accounted), med(diffs)))
        return r


def quartiles(v):
    return statistics.quantiles(v, n=4) if len(v) >= 2 else [v[0]] * 3


def timing(cmd):
    """In-process times of a mlir-opt run: {top-level name: wall s}, and
    the whole process's wall time under "(process)"."""
    t0 = time.perf_counter()
    p = subprocess.run(cmd + ["--mlir-timing", "--mlir-output-format=json"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    whole = time.perf_counter() - t0
    if p.returncode:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(cmd),
                                         p.stderr))
    t = {e["name"]: e["wall"]["duration"] for e in json.loads(p.stderr)
         if "name" in e}
    # Everything mlir-opt did between parsing and printing, on both sides:
    # pass manager set-up included. (Top-level entries are no sum: a
    # dynamic pipeline run inside a pass is a top-level entry too, timed
    # twice, and names repeat.)
    t["(pipeline)"] = t["Total"] - t["Parser"] - t.get("Output", 0.0)
    t["(process)"] = whole
    return t


def sparse_section(bindir, runs, instructions, copies=0):
    plugin = os.path.join(os.path.dirname(bindir), "lib", "Q2Plugin.so")
    benchlib.require(plugin, SPARSE, KERNELS)
    with tempfile.TemporaryDirectory(prefix="q2-cost-sparse-") as tmp:
        program, name = SPARSE, "dense_output.mlir"
        if copies:
            program = benchlib.sparse_program(
                KERNELS, copies, os.path.join(tmp, "kernels.mlir"))
            name = "%d copies of sparse-kernels.mlir" % copies
        base = [MLIR_OPT, program, "--mlir-disable-threading",
                "--load-pass-plugin=" + plugin]
        profile = lambda opts: base + [
            "--pass-pipeline=builtin.module(q2-profile{pipeline=\"%s\" %s})"
            % (SPARSIFIER, opts)]
        variants = {
            "plain": base + ["--pass-pipeline=builtin.module(%s)" % SPARSIFIER],
            "ir": profile("report=" + os.path.join(tmp, "ir.json")),
            "no-ir": profile("ir-metrics=false report="
                             + os.path.join(tmp, "noir.json")),
        }
        outputs = {}
        for k, cmd in variants.items():
            out = os.path.join(tmp, k + ".mlir")
            benchlib.run_checked(cmd + ["-o", out])
            outputs[k] = open(out, "rb").read()
        same = {k: outputs[k] == outputs["plain"] for k in ("ir", "no-ir")}
        for k in ("ir", "no-ir"):
            if not same[k]:
                print("  q2-profile (%s) leaves another module than the plain "
                      "pipeline (%d bytes, plain %d): it ran another pipeline;"
                      " not timed" % (k, len(outputs[k]), len(outputs["plain"])))
        times = {k: [] for k in variants}
        whole = {k: [] for k in variants}  # spawn to exit
        stages = {k: [] for k in ("ir", "no-ir")}
        reports = {"ir": os.path.join(tmp, "ir.json"),
                   "no-ir": os.path.join(tmp, "noir.json")}
        for i in range(runs):
            order = list(variants)
            if i % 2:
                order.reverse()
            for k in order:
                t = timing(variants[k] + ["-o", os.devnull])
                whole[k].append(t["(process)"])
                times[k].append(t["(pipeline)"])
                if k != "plain":
                    # The pipeline's stages: passes, their hooks and
                    # per-pass IR metrics, without the fixed costs around
                    # them (building the pass manager, the report).
                    rep = json.load(open(reports[k]))["phase_b"]["stages"]
                    stages[k].append(sum(s["wall_s"] for s in rep
                                         if s["name"] != "Input"))
        med = statistics.median
        print("sparsifier on %s, %d paired rounds: plain pipeline %.1f ms "
              "(median)" % (name, runs, 1e3 * med(times["plain"])))
        ratios = {}
        for k in ("ir", "no-ir"):
            pw = [p / q for p, q in zip(whole[k], whole["plain"])]
            ratios[k] = {"whole": med(pw) if same[k] else None,
                         "in-process": None}
            print("  q2-profile %-6s whole process (spawn to exit): %.1f ms "
                  "against %.1f ms; paired %.3f (quartiles %s)%s"
                  % ("(" + k + ")", 1e3 * med(whole[k]),
                     1e3 * med(whole["plain"]), med(pw),
                     "/".join("%.2f" % x for x in quartiles(pw)),
                     "" if same[k] else "  [different module: not valid]"))
            paired = [p / q for p, q in zip(times[k], times["plain"])]
            per_pass = [p / q for p, q in zip(stages[k], times["plain"])]
            if same[k]:
                ratios[k]["in-process"] = med(paired)
            print("    in process (pipeline %.1f ms against %.1f ms): paired "
                  "%.3f (quartiles %s), of medians %.3f; its stages alone "
                  "(sum of stage wall_s) %.3f"
                  % (1e3 * med(times[k]), 1e3 * med(times["plain"]),
                     med(paired),
                     "/".join("%.2f" % x for x in quartiles(paired)),
                     med(times[k]) / med(times["plain"]), med(per_pass)))
        if instructions:
            counts = count_instructions(variants, tmp)
            if counts:
                p = counts["plain"]
                print("  instructions (callgrind), M: plain pipeline %.1f; "
                      "q2-profile ir %.1f (%.3f; stages alone %.3f), no-ir "
                      "%.1f (%.3f; stages alone %.3f)"
                      % (p / 1e6, counts["ir"] / 1e6, counts["ir"] / p,
                         counts["ir-stages"] / p, counts["no-ir"] / 1e6,
                         counts["no-ir"] / p, counts["no-ir-stages"] / p))
        return ratios


def count_instructions(variants, tmp):
    # Plain: the pipeline's PassManager::run. Profiled: q2-profile's
    # runOnOperation (whole) and the pass manager it runs the pipeline in
    # (callgrind names the inner, recursive run with '2: the stages alone).
    inner = "mlir::PassManager::run(mlir::Operation*)'2 "
    wanted = {"plain": {"plain": "mlir::PassManager::run(mlir::Operation*) "},
              "ir": {"ir": "ProfilePass::runOnOperation() ",
                     "ir-stages": inner},
              "no-ir": {"no-ir": "ProfilePass::runOnOperation() ",
                        "no-ir-stages": inner}}
    argv = {k: v + ["-o", os.devnull] for k, v in variants.items()}
    return benchlib.callgrind_counts(argv, wanted, tmp)


def verdict(name, ratio, target):
    if ratio is None:
        print("FAIL %s: not measured (see above), target <= %.2f"
              % (name, target))
        return False
    ok = ratio <= target
    print("%s %s: %.3f (target <= %.2f)" % ("PASS" if ok else "FAIL", name,
                                            ratio, target))
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.path.join(benchlib.ROOT, "build",
                                                  "bin"))
    ap.add_argument("--runs", type=int, default=7,
                    help="paired rounds per NORB (default 7)")
    ap.add_argument("--sparse-runs", type=int, default=21,
                    help="paired rounds of the sparsifier (default 21)")
    ap.add_argument("--norbs", default="16,12")
    ap.add_argument("--instructions", action="store_true")
    ap.add_argument("--sparse-copies", type=int, default=0,
                    help="time the q2-profile pass on N copies of "
                    "Inputs/sparse-kernels.mlir instead of dense_output.mlir")
    a = ap.parse_args()
    bindir = os.path.abspath(a.bin)
    t0 = time.time()
    print("load average at start: %.1f" % os.getloadavg()[0])
    ok = True
    results = {}
    for norb in (int(n) for n in a.norbs.split(",") if n):
        results[norb] = q2opt_section(bindir, norb, a.runs)
    sparse = sparse_section(bindir, a.sparse_runs, a.instructions,
                            a.sparse_copies)
    print("load average at end: %.1f (%.0f s)" % (os.getloadavg()[0],
                                                 time.time() - t0))
    for norb, r in results.items():
        ok &= verdict("--profile-stages --run 0 / plain, NORB %d" % norb, r,
                      1.30)
    ok &= verdict("q2-profile with IR metrics / plain sparsifier, whole "
                  "process", sparse["ir"]["whole"], 1.20)
    for k, what in (("ir", "with"), ("no-ir", "without")):
        r = sparse[k]
        if k == "no-ir" and r["whole"] is not None:
            print("(q2-profile without IR metrics / plain sparsifier, whole "
                  "process: %.3f)" % r["whole"])
        if r["in-process"] is not None:
            print("(not judged: q2-profile %s IR metrics / plain sparsifier, "
                  "in process: %.3f)" % (what, r["in-process"]))
    print("overall: %s" % ("PASS" if ok else "FAIL"))


if __name__ == "__main__":
    main()
