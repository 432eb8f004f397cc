#!/usr/bin/python3
"""Compile-time and memory benchmark of the six-stage pipeline.

Everything is measured in one run on this machine and printed with the
target next to it: best and median of >= 5 runs of the whole process, peak
RSS of each child from wait4.

  /usr/bin/python3 benchmarks/pipeline/compile_bench.py [--build build]
          [--runs 5] [--out DIR] [--skip-legacy] [--max-norb 16]
          [--large-only] [--baseline BIN_DIR]

(/usr/bin/python3: Debian's python3-matplotlib draws the pictures; a pyenv
`python3` on PATH usually lacks it and the pictures are then not drawn.)

Sections:
  1. Hamiltonian size (dynamic, n_est 8, n_trotter 10, order 2, whole
     `q2-opt --qpe-pipeline`): H2, H3O+, LiH 4e6o, H6 chain, decomposed and
     native, with the ratio to H2 of the same run; the --unroll stress case.
  2. Scaling: every bundled molecule plus synthetic FCIDUMPs above 1000
     terms (q2-random-fcidump); total time and peak RSS (best of --runs),
     per-stage time and peak from one --profile-stages report each; writes
     DIR/scaling.{csv,md,png} (default DIR: BUILD/bench/compile).
     --baseline BIN_DIR: the same inputs through an earlier build's q2-qpe
     and q2-opt, run back to back with this build's in each round (the
     order alternating), wall and CPU, and the median over rounds of the
     per-round ratio (no slower than before?).
  2b. To 10^5 terms: random FCIDUMPs NORB 10, 12, 14, 16 (q2-random-fcidump
     NORB NORB/2 7: 14,251 .. 94,849 terms; --max-norb caps NORB, 0 skips
     them), ONE run each (minutes and GBs at NORB 16): q2-qpe time, peak
     and program bytes per term, then one `q2-opt --qpe-pipeline
     --profile-stages` (whole-process wall and peak from wait4, per-stage
     wall and peak from its report) and the dominant stage per size; the
     whole process again (--runs rounds, at least 15 below 20,000 terms)
     without the profile, each round next to H2 (15 terms, all start-up),
     and time per term above that start-up (median over rounds of the
     paired difference) with its max/min from 1,000 terms; writes
     DIR/scaling_large.{csv,md} and the log-log DIR/scaling_loglog.png (every
     input of sections 2 and 2b). --large-only runs just this section, with
     the section-2 inputs measured once each for the picture.
  3. The plugin path: q2-qpe-pipeline inside stock mlir-opt-22.
  4. The earlier targets (rolled loops, stock tools, IR growth).
"""
import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "common"))
from benchlib import HAM, LLVM_BIN, ROOT, fcidump, qpe_info, qpe_program, \
    require, run_cpu, run_peak as run  # noqa: E402

STAGES = ["HLOLowering", "QuantumLowering", "Bufferization", "LLVMDialect",
          "LLVMIR", "ObjectCode"]
# Section 2b also shows Input (parsing and verifying the program): with a
# table per Trotter step it is one of the stages that grow with the terms.
LARGE_STAGES = ["Input"] + STAGES


def stats_of(cmds_fn, runs):
    """(best, median, max peak RSS MB) of `runs` runs of the commands."""
    walls, rss = [], []
    for _ in range(runs):
        w, r = 0.0, 0.0
        for cmd in cmds_fn():
            cw, cr = run(cmd)
            w += cw
            r = max(r, cr)
        walls.append(w)
        rss.append(r)
    return min(walls), statistics.median(walls), max(rss)


def median_of(cmds_fn, runs):
    _, med, rss = stats_of(cmds_fn, runs)
    return med, rss


def above_startup(q2opt, prog, startup_prog, out, runs):
    """`q2-opt --qpe-pipeline prog` against the start-up program (H2: 15
    terms, nothing but start-up), interleaved run by run so both see the
    same load. Returns the best wall and CPU of each, and the time above the
    start-up: the median over rounds of (input - start-up) in the same
    round, which cancels the load drift a best-of pair does not (at a few
    thousand terms the difference is 20-50 ms, below the start-up's own
    spread under load)."""
    w, c, sw, sc = [], [], [], []
    for _ in range(runs):
        for prg, ws, cs in ((startup_prog, sw, sc), (prog, w, c)):
            a, b = run_cpu([q2opt, "--qpe-pipeline", prg, "-o", out])
            ws.append(a)
            cs.append(b)
    return {"best_s": min(w), "best_cpu_s": min(c), "startup_s": min(sw),
            "startup_cpu_s": min(sc), "rounds": runs,
            "above_s": statistics.median(a - b for a, b in zip(w, sw)),
            "above_cpu_s": statistics.median(a - b for a, b in zip(c, sc))}


def verdict(ok):
    return "PASS" if ok else "FAIL"


def info_terms(q2qpe, ham):
    info = qpe_info(q2qpe, ham)
    return info["terms"], info["qubits"]


def stage_profile(q2opt, prog, tmp, *flags):
    """Per-stage wall s and peak RSS MB from one --profile-stages report."""
    rep = os.path.join(tmp, "stages.json")
    if os.path.exists(rep):
        os.remove(rep)
    subprocess.run([q2opt, "--qpe-pipeline", "--profile-stages", "--run", "0",
                    prog, "--report", rep, "-o", os.path.join(tmp, "p.o"),
                    *flags], check=True, capture_output=True)
    with open(rep) as f:
        r = json.load(f)
    out = {}
    for st in r["phase_b"]["stages"]:
        for name in STAGES:
            if st["name"].endswith(name):
                out[name] = (st["wall_s"], st["peak_rss_bytes"] / 1e6)
    return out


def plot(rows, png):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"(matplotlib missing from {sys.executable}: {png} not drawn; "
              "run with /usr/bin/python3)")
        return
    rows = sorted(rows, key=lambda r: r["terms"])
    terms = [r["terms"] for r in rows]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.8))
    ax1.stackplot(terms, *[[r[f"{name}_s"] for r in rows] for name in STAGES],
                  labels=STAGES, alpha=0.8)
    ax1.plot(terms, [r["best_s"] for r in rows], "k.-",
             label="whole process (best)")
    ax1.set_xlabel("Pauli terms")
    ax1.set_ylabel("seconds")
    ax1.set_title("compile time per stage (decomposed, stacked)")
    ax1.legend(fontsize=7)
    for name in STAGES:
        ax2.plot(terms, [r[f"{name}_peak_mb"] for r in rows], ".-", label=name)
    ax2.plot(terms, [r["peak_rss_mb"] for r in rows], "k.-", label="process peak")
    ax2.set_xlabel("Pauli terms")
    ax2.set_ylabel("peak RSS, MB")
    ax2.set_title("peak RSS per stage")
    ax2.legend(fontsize=7)
    fig.suptitle("q2-opt --qpe-pipeline, dynamic, n_est 8, n_trotter 10, order 2")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


def large_row(q2qpe, q2opt, fci, tmp, label, runs, startup_prog):
    """One input measured once: Phase A (q2-qpe) and the six stages."""
    terms, qubits = info_terms(q2qpe, fci)
    prog = os.path.join(tmp, label + ".mlir")
    qs, qpk = run([q2qpe, fci, "--mode", "dynamic", "--n-est", "8",
                   "--n-trotter", "10", "--order", "2", "--power", "time",
                   "-o", prog])
    nbytes = os.path.getsize(prog)
    rep = os.path.join(tmp, label + ".json")
    wall, peak = run([q2opt, "--qpe-pipeline", "--profile-stages", "--run",
                        "0", prog, "--report", rep, "-o",
                        os.path.join(tmp, "large.o")])
    with open(rep) as f:
        r = json.load(f)
    row = {"input": label, "qubits": qubits, "terms": terms,
           "qpe_s": qs, "qpe_peak_mb": qpk, "program_bytes": nbytes,
           "bytes_per_term": nbytes / terms, "wall_s": wall,
           "peak_rss_mb": peak}
    for name in LARGE_STAGES:
        row[f"{name}_s"], row[f"{name}_peak_mb"] = 0.0, 0.0
    for st in r["phase_b"]["stages"]:
        for name in LARGE_STAGES:
            if st["name"].endswith(name):
                row[f"{name}_s"] = st["wall_s"]
                row[f"{name}_peak_mb"] = st["peak_rss_bytes"] / 1e6
    row["dominant"] = max(LARGE_STAGES, key=lambda n: row[f"{n}_s"])
    # Native Pauli rotations, whole process, no profile (issue 24's target).
    row["native_s"], row["native_peak_mb"] = run(
        [q2opt, "--qpe-pipeline", "--keep-native-pauli", prog, "-o",
         os.path.join(tmp, "large.o")])
    # The whole process without the profile, best of `runs`: what the
    # time-per-term target is read from.
    # Small inputs get more rounds: their time above the start-up is a few
    # tens of ms, and each round costs under a second.
    row.update(above_startup(q2opt, prog, startup_prog,
                             os.path.join(tmp, "large.o"),
                             runs if terms > 20000 else max(runs, 15)))
    os.remove(prog)
    return row


def plot_loglog(rows, png):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"(matplotlib missing from {sys.executable}: {png} not drawn; "
              "run with /usr/bin/python3)")
        return
    rows = sorted(rows, key=lambda r: r["terms"])
    terms = [r["terms"] for r in rows]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 5))
    for name in LARGE_STAGES:
        ax1.loglog(terms, [max(r[f"{name}_s"], 1e-4) for r in rows], ".-",
                   label=name)
    ax1.loglog(terms, [r["wall_s"] for r in rows], "k.-", label="whole process")
    ax1.loglog(terms, [r["qpe_s"] for r in rows], "k.:", label="q2-qpe")
    ref = [3e-4 * t for t in terms]
    ax1.loglog(terms, ref, color="0.6", ls="--", lw=0.8, label="0.3 ms/term")
    ax1.set_xlabel("Pauli terms")
    ax1.set_ylabel("wall seconds")
    ax1.set_title("time per stage")
    ax1.legend(fontsize=7)
    for name in LARGE_STAGES:
        ax2.loglog(terms, [max(r[f"{name}_peak_mb"], 1) for r in rows], ".-",
                   label=name)
    ax2.loglog(terms, [r["peak_rss_mb"] for r in rows], "k.-",
               label="process peak")
    ax2.loglog(terms, [r["qpe_peak_mb"] for r in rows], "k.:",
               label="q2-qpe peak")
    ax2.set_xlabel("Pauli terms")
    ax2.set_ylabel("peak RSS, MB")
    ax2.set_title("peak RSS per stage")
    ax2.legend(fontsize=7)
    fig.suptitle("q2-opt --qpe-pipeline --profile-stages, decomposed, dynamic, "
                 "n_est 8, n_trotter 10, order 2 (one run per input)")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print(f"wrote {png}")


def large_section(q2qpe, q2opt, randfci, tmp, out_dir, max_norb, small,
                  runs):
    """Section 2b; `small` adds the section-2 inputs (once each) to the
    picture."""
    print(f"\n2b. To 10^5 terms: random NORB 10..{max_norb}, one run each "
          "(q2-opt --qpe-pipeline --profile-stages; decomposed)\n")
    inputs = []
    if small:
        inputs += [(os.path.join(HAM, f), f.replace(".FCIDUMP", ""))
                   for f in sorted(os.listdir(HAM)) if f.endswith(".FCIDUMP")]
        for norb, nelec, seed in ((6, 6, 1), (7, 6, 2)):
            f = os.path.join(tmp, f"random_{norb}o{nelec}e.FCIDUMP")
            subprocess.run([randfci, str(norb), str(nelec), str(seed), "-o", f],
                           check=True)
            inputs.append((f, f"random_{norb}o{nelec}e"))
    for norb in (10, 12, 14, 16):
        if norb > max_norb:
            break
        f = os.path.join(tmp, f"random_{norb}o.FCIDUMP")
        subprocess.run([randfci, str(norb), str(norb // 2), "7", "-o", f],
                       check=True)
        inputs.append((f, f"random NORB {norb}"))
    # The fixed start-up, measured next to every input (interleaved runs).
    startup_prog = qpe_program(q2qpe, fcidump("h2_0.7414"),
                               os.path.join(tmp, "startup.mlir"))
    rows = []
    for fci, label in inputs:
        row = large_row(q2qpe, q2opt, fci, tmp, label.replace(" ", "_"),
                        runs, startup_prog)
        row["input"] = label
        rows.append(row)
        print(f"  {label}: {row['terms']} terms, q2-qpe {row['qpe_s']:.2f} s "
              f"{row['qpe_peak_mb']:.0f} MB ({row['bytes_per_term']:.0f} B/term), "
              f"q2-opt {row['wall_s']:.1f} s {row['peak_rss_mb']:.0f} MB, "
              f"dominant {row['dominant']}; best of {runs} without profile "
              f"{row['best_s']:.2f} s ({row['best_cpu_s']:.2f} s CPU), start-up "
              f"{row['startup_s']:.2f} s ({row['startup_cpu_s']:.2f} s CPU)",
              flush=True)
    rows.sort(key=lambda r: r["terms"])
    header = ("| input | terms | q2-qpe s | q2-qpe MB | B/term | q2-opt s | "
              "ms/term | peak MB | KB/term | native s | best s | dominant | "
              + " | ".join(f"{n} s" for n in LARGE_STAGES) + " |")
    lines = [header, "|" + "---|" * (12 + len(LARGE_STAGES))]
    for r in rows:
        lines.append(
            f"| {r['input']} | {r['terms']} | {r['qpe_s']:.2f} | "
            f"{r['qpe_peak_mb']:.0f} | {r['bytes_per_term']:.0f} | "
            f"{r['wall_s']:.2f} | {1e3 * r['wall_s'] / r['terms']:.2f} | "
            f"{r['peak_rss_mb']:.0f} | {1e3 * r['peak_rss_mb'] / r['terms']:.1f} | "
            f"{r['native_s']:.2f} | {r['best_s']:.2f} | {r['dominant']} | "
            + " | ".join(f"{r[n + '_s']:.2f}" for n in LARGE_STAGES) + " |")
    table = "\n".join(lines)
    print(table)
    with open(os.path.join(out_dir, "scaling_large.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(out_dir, "scaling_large.md"), "w") as f:
        f.write(table + "\n")
    print(f"wrote {out_dir}/scaling_large.csv, scaling_large.md")
    plot_loglog(rows, os.path.join(out_dir, "scaling_loglog.png"))
    # Issue 24, point 1 (whole q2-opt process; --profile-stages included in
    # the decomposed time, so it is pessimistic).
    by = {r["input"]: r for r in rows}
    start = min(r["peak_rss_mb"] for r in rows)
    big = [r for r in rows if r["terms"] >= 1000]
    for label, limit in (("random NORB 12", 10.0), ("random NORB 16", 30.0)):
        if label in by:
            r = by[label]
            print(f"  {label} decomposed {r['wall_s']:.1f} s (target <= "
                  f"{limit:.0f} s) {verdict(r['wall_s'] <= limit)}")
    if "random NORB 16" in by:
        r = by["random NORB 16"]
        print(f"  random NORB 16 native {r['native_s']:.1f} s (target <= 10 s) "
              f"{verdict(r['native_s'] <= 10)}; peak {r['peak_rss_mb']:.0f} MB "
              f"(target <= 1500) {verdict(r['peak_rss_mb'] <= 1500)}")
    if big:
        # Time per term, raw and above the fixed start-up: H2's whole
        # process (15 terms: nothing but start-up), same command, each round
        # next to the input's.
        raw = [r["best_s"] / r["terms"] for r in big]
        print(f"  time per term from {big[0]['terms']} to {big[-1]['terms']} "
              f"terms (q2-opt --qpe-pipeline, best of {runs}):")
        print(f"    raw wall: {1e3 * min(raw):.3f}-{1e3 * max(raw):.3f} ms, max/min "
              f"{max(raw) / min(raw):.2f} (start-up included)")
        for unit, key, skey in (("wall", "above_s", "startup_s"),
                                ("CPU", "above_cpu_s", "startup_cpu_s")):
            above = [max(r[key], 1e-9) / r["terms"] for r in big]
            spread = max(above) / min(above)
            print(f"    {unit} above start-up (median of paired rounds against "
                  f"H2, start-up {min(r[skey] for r in big):.3f}-"
                  f"{max(r[skey] for r in big):.3f} s): "
                  + ", ".join(f"{r['terms']}: {1e3 * a:.4f}"
                              for r, a in zip(big, above))
                  + f" ms/term; max/min {spread:.2f} (target <= 1.5) "
                  f"{verdict(spread <= 1.5)}")
        kb = max(1e3 * (r["peak_rss_mb"] - start) / r["terms"] for r in big)
        print(f"  peak above start-up ({start:.0f} MB), worst per term from "
              f"1000 terms: {kb:.1f} KB (target <= 10) {verdict(kb <= 10)}")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", help="where the scaling table and plot go "
                    "(default BUILD/bench/compile)")
    ap.add_argument("--skip-legacy", action="store_true",
                    help="skip section 4 (the earlier targets)")
    ap.add_argument("--max-norb", type=int, default=16,
                    help="largest random NORB of section 2b (10, 12, 14, 16; "
                    "default 16; below 10 skips the section)")
    ap.add_argument("--baseline", metavar="BIN_DIR",
                    help="section 2 also runs the q2-qpe and q2-opt of BIN_DIR "
                    "(an earlier build's bin/), interleaved run by run with "
                    "this build's, and prints best/median of both and the "
                    "ratio")
    ap.add_argument("--large-only", action="store_true",
                    help="run only section 2b (plus each section-2 input "
                    "once, for the log-log picture)")
    args = ap.parse_args()
    if args.baseline and args.large_only:
        sys.exit("compile_bench: --baseline compares section 2, which "
                 "--large-only skips")
    if args.runs < 5:
        sys.exit("compile_bench: --runs must be >= 5")
    bin_dir = os.path.join(args.build, "bin")
    q2qpe, q2opt = os.path.join(bin_dir, "q2-qpe"), os.path.join(bin_dir, "q2-opt")
    randfci = os.path.join(bin_dir, "q2-random-fcidump")
    plugin = os.path.join(args.build, "lib", "Q2Plugin.so")
    require(q2qpe, q2opt, randfci, *(() if args.large_only else (plugin,)))
    out_dir = args.out or os.path.join(args.build, "bench", "compile")
    os.makedirs(out_dir, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="q2-bench-")
    ok_all = True

    def check(ok):
        nonlocal ok_all
        ok_all &= ok
        return verdict(ok)

    if args.large_only:
        try:
            large_section(q2qpe, q2opt, randfci, tmp, out_dir, args.max_norb,
                          small=True, runs=args.runs)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return 0
    try:
        def program(ham, n_est, n_trot, *extra):
            out = os.path.join(tmp, f"{ham}_{n_est}_{n_trot}{'_'.join(extra)}.mlir")
            return qpe_program(q2qpe, fcidump(ham), out, n_est, n_trot,
                               power=None if "--power" in extra else "time",
                               order=None, extra=extra)

        def chem(fcidump, *extra):
            """The issue's parameters: dynamic, n_est 8, n_trotter 10, order 2,
            power=time (q2-qpe's default then; q2-qpe now warns that 10 steps
            are too few for 3 mHa, which does not matter for compile time)."""
            out = os.path.join(tmp, os.path.basename(fcidump) + ".mlir")
            return qpe_program(q2qpe, fcidump, out, extra=extra)

        def q2(prog, *flags):
            return lambda: [[q2opt, "--qpe-pipeline", prog, "-o",
                             os.path.join(tmp, "out.o"), *flags]]

        # --- 1. Hamiltonian size --------------------------------------------
        print(f"1. Hamiltonian size: dynamic, n_est 8, n_trotter 10, order 2, "
              f"whole q2-opt --qpe-pipeline process; best / median of "
              f"{args.runs}, peak RSS = max over runs (wait4)\n")
        print(f"{'molecule':<22}{'terms':>6}  {'mode':<10}{'best s':>8}"
              f"{'median s':>10}{'RSS MB':>8}{'x H2':>7}  target")
        targets = {  # (molecule, native): (seconds, MB or None)
            ("h2_0.7414", False): (0.1, None),
            ("h3o+_4e4o", False): (1.0, None),
            ("lih_4e6o", False): (2.0, None),
            ("h6_chain_6e6o", False): (3.0, 250),
            ("h6_chain_6e6o", True): (1.0, 250),
        }
        h2_best = {}
        for mol in ("h2_0.7414", "h3o+_4e4o", "lih_4e6o", "h6_chain_6e6o"):
            fci = os.path.join(HAM, mol + ".FCIDUMP")
            terms, _ = info_terms(q2qpe, fci)
            prog = chem(fci)
            for native in (False, True):
                flags = ["--keep-native-pauli"] if native else []
                best, med, rss = stats_of(q2(prog, *flags), args.runs)
                h2_best.setdefault(native, best)
                tgt = targets.get((mol, native))
                mark = ""
                if tgt:
                    ok = best <= tgt[0] and (tgt[1] is None or rss <= tgt[1])
                    mark = (f"<= {tgt[0]} s" + (f", <= {tgt[1]} MB" if tgt[1] else "")
                            + f"  {check(ok)}")
                print(f"{mol:<22}{terms:>6}  {'native' if native else 'decomposed':<10}"
                      f"{best:>8.3f}{med:>10.3f}{rss:>8.0f}{best / h2_best[native]:>7.1f}  {mark}")
        stress = program("h2_0.7414", 6, 10, "--unroll", "--mode", "fixed")
        best, med, rss = stats_of(q2(stress), args.runs)
        print(f"{'H2 --unroll stress':<22}{'':>6}  {'fixed':<10}{best:>8.3f}{med:>10.3f}"
              f"{rss:>8.0f}{best / h2_best[False]:>7.1f}  <= 2.0 s  {check(best <= 2.0)}")
        print("   (stress: q2-qpe H2 --mode fixed --n-est 6 --n-trotter 10 --unroll)")
        # What no compile can go below: loading libMLIR and libLLVM (stock
        # mlir-opt-22 pays the same). Printed so a start-up target can be
        # read against it.
        floor, _, _ = stats_of(lambda: [[q2opt, "--version"]], args.runs)
        stock, _, _ = stats_of(
            lambda: [[os.path.join(LLVM_BIN, "mlir-opt"), "--version"]], args.runs)
        print(f"   (process floor, best of {args.runs}: q2-opt --version "
              f"{floor:.3f} s, mlir-opt-22 --version {stock:.3f} s; H2 "
              f"decomposed is {h2_best[False] - floor:.3f} s above it)")

        # --- 2. Scaling -----------------------------------------------------
        print(f"\n2. Scaling in the number of Pauli terms (decomposed; whole process "
              f"best of {args.runs}; per stage from one --profile-stages report)\n")
        inputs = [os.path.join(HAM, f) for f in sorted(os.listdir(HAM))
                  if f.endswith(".FCIDUMP")]
        for norb, nelec, seed in ((6, 6, 1), (7, 6, 2)):
            f = os.path.join(tmp, f"random_{norb}o{nelec}e.FCIDUMP")
            subprocess.run([randfci, str(norb), str(nelec), str(seed), "-o", f],
                           check=True)
            inputs.append(f)
        rows = []
        for fci in inputs:
            terms, qubits = info_terms(q2qpe, fci)
            prog = chem(fci)
            best, med, rss = stats_of(q2(prog), args.runs)
            per = stage_profile(q2opt, prog, tmp)
            row = {"input": os.path.basename(fci).replace(".FCIDUMP", ""),
                   "qubits": qubits, "terms": terms, "best_s": best,
                   "median_s": med, "peak_rss_mb": rss}
            for name in STAGES:
                w, pk = per.get(name, (0.0, 0.0))
                row[f"{name}_s"] = w
                row[f"{name}_peak_mb"] = pk
            rows.append(row)
        rows.sort(key=lambda r: r["terms"])
        header = ("| input | qubits | terms | best s | ms/term | peak MB | "
                  + " | ".join(f"{n} s" for n in STAGES) + " |")
        lines = [header, "|" + "---|" * (6 + len(STAGES))]
        for r in rows:
            lines.append(f"| {r['input']} | {r['qubits']} | {r['terms']} | "
                         f"{r['best_s']:.3f} | {1e3 * r['best_s'] / r['terms']:.2f} | "
                         f"{r['peak_rss_mb']:.0f} | "
                         + " | ".join(f"{r[n + '_s']:.3f}" for n in STAGES) + " |")
        table = "\n".join(lines)
        print(table)
        big = [r for r in rows if r["terms"] >= 185]
        per_term = [r["best_s"] / r["terms"] for r in big]
        spread = max(per_term) / min(per_term)
        # Since the table form these inputs are nearly all start-up (H2,
        # rows[0], is nothing else: 0.01-0.1 s above it, within the noise of
        # a loaded machine), so a per-term ratio here measures the start-up;
        # the per-term target is checked in section 2b, above the start-up
        # measured next to each input, from 1,000 to 95,000 terms.
        t0 = rows[0]["best_s"]
        print(f"\ntime per term from {big[0]['terms']} to {big[-1]['terms']} terms: "
              f"{1e3 * min(per_term):.2f}-{1e3 * max(per_term):.2f} ms, "
              f"max/min = {spread:.2f} (start-up included; above the start-up, "
              f"{t0:.3f} s = {rows[0]['input']}: "
              + ", ".join(f"{1e3 * (r['best_s'] - t0) / r['terms']:.3f}" for r in big)
              + " ms; the target is checked in 2b)")
        if args.baseline:
            base_qpe = os.path.join(args.baseline, "q2-qpe")
            base_opt = os.path.join(args.baseline, "q2-opt")
            require(base_qpe, base_opt)
            # Per round the two builds run back to back, so one round's ratio
            # sees one load; the median of those ratios is what to read on a
            # busy machine (best-of compares runs that saw different loads).
            # CPU = user + sys of the process, less sensitive to the load.
            print(f"\nagainst {args.baseline} (each with its own q2-qpe's "
                  f"program; {args.runs} rounds, the two back to back in each; "
                  f"wall best / median; CPU median; ratio = median over rounds "
                  f"of this / baseline):\n")
            print("| input | terms | baseline best s | median s | CPU s | "
                  "this best s | median s | CPU s | wall ratio | CPU ratio |")
            print("|---|---|---|---|---|---|---|---|---|---|")
            by_name = {r["input"]: r for r in rows}
            for fci in inputs:
                r = by_name[os.path.basename(fci).replace(".FCIDUMP", "")]
                mine = chem(fci)
                theirs = qpe_program(base_qpe, fci, os.path.join(
                    tmp, os.path.basename(fci) + ".base.mlir"))
                bw, tw, bc, tc = [], [], [], []
                for i in range(args.runs):
                    pair = [(base_opt, theirs, bw, bc), (q2opt, mine, tw, tc)]
                    for exe, prog, walls, cpus in pair[::1 if i % 2 else -1]:
                        w, c = run_cpu([exe, "--qpe-pipeline", prog, "-o",
                                        os.path.join(tmp, "out.o")])
                        walls.append(w)
                        cpus.append(c)
                wr = statistics.median(t / b for t, b in zip(tw, bw))
                cr = statistics.median(t / b for t, b in zip(tc, bc))
                print(f"| {r['input']} | {r['terms']} | {min(bw):.3f} | "
                      f"{statistics.median(bw):.3f} | {statistics.median(bc):.3f} | "
                      f"{min(tw):.3f} | {statistics.median(tw):.3f} | "
                      f"{statistics.median(tc):.3f} | {wr:.3f} | {cr:.3f} |")
        with open(os.path.join(out_dir, "scaling.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)
        with open(os.path.join(out_dir, "scaling.md"), "w") as f:
            f.write(table + "\n")
        print(f"wrote {out_dir}/scaling.csv, scaling.md")
        plot(rows, os.path.join(out_dir, "scaling.png"))
        if args.max_norb >= 10:
            large_section(q2qpe, q2opt, randfci, tmp, out_dir, args.max_norb,
                          small=True, runs=args.runs)

        # --- 3. Plugin path -------------------------------------------------
        print(f"\n3. The plugin path: q2-qpe-pipeline in stock mlir-opt-22 vs q2-opt, "
              f"H6 chain, best of {args.runs}\n")
        h6 = chem(os.path.join(HAM, "h6_chain_6e6o.FCIDUMP"))
        for native in (False, True):
            opt = "keep-native-pauli " if native else ""

            def stock_plugin():
                return [[os.path.join(LLVM_BIN, "mlir-opt"),
                         f"--load-dialect-plugin={plugin}",
                         f"--load-pass-plugin={plugin}",
                         f"--pass-pipeline=builtin.module(q2-qpe-pipeline{{{opt}"
                         f"output={os.path.join(tmp, 'plug.o')}}})", h6, "-o",
                         os.devnull]]
            bp, _, rp = stats_of(stock_plugin, args.runs)
            bq, _, rq = stats_of(q2(h6, *(["--keep-native-pauli"] if native else [])),
                                 args.runs)
            print(f"{'native' if native else 'decomposed':<10} mlir-opt-22 + plugin "
                  f"{bp:.3f} s {rp:.0f} MB, q2-opt {bq:.3f} s {rq:.0f} MB, "
                  f"ratio {bp / bq:.2f}")

        # --- 4. Earlier targets ---------------------------------------------
        if not args.skip_legacy:
            print("\n4. Earlier targets\n")
            h2 = program("h2_0.7414", 8, 10)
            w, r = median_of(q2(h2), args.runs)
            ok = w < 0.5 and r < 200
            ok_all &= ok
            print(f"H2 dynamic n_est=8 n_trotter=10 rolled, six stages: {w:.3f} s, "
                  f"{r:.0f} MB  (target < 0.5 s, < 200 MB; Catalyst baseline 306 s / "
                  f"21 GB, its fix 25 s / 1.2 GB)  {verdict(ok)}")

            h3o = program("h3o+_4e4o", 8, 10)
            for label, flags in (("native Pauli", ["--keep-native-pauli"]),
                                 ("decomposed Pauli", [])):
                w, r = median_of(q2(h3o, *flags), args.runs)
                ok = w < 1.5
                if flags:
                    ok_all &= ok
                print(f"H3O+ (4e,4o) same parameters, {label}: {w:.3f} s, {r:.0f} MB"
                      f"  (target < 1.5 s)  {verdict(ok)}")

            small, big = program("h2_0.7414", 2, 1), program("h2_0.7414", 10, 20)
            ws, _ = median_of(q2(small), args.runs)
            wb, _ = median_of(q2(big), args.runs)
            ok = wb / ws <= 1.3
            ok_all &= ok
            print(f"rolled (10,20) over (2,1): {wb:.3f} s / {ws:.3f} s = "
                  f"{wb / ws:.2f}  (target <= 1.3)  {verdict(ok)}")

            # The same stages through the stock tools, through text files.
            stages = ["q2-hlo-lowering", "q2-quantum-lowering", "q2-bufferization",
                      "q2-llvm-dialect"]

            def stock():
                cmds, prev = [], h2
                for i, st in enumerate(stages, 1):
                    nxt = os.path.join(tmp, f"stock{i}.mlir")
                    cmds.append([os.path.join(LLVM_BIN, "mlir-opt"),
                                 f"--load-dialect-plugin={plugin}",
                                 f"--load-pass-plugin={plugin}",
                                 f"--pass-pipeline=builtin.module({st})", prev, "-o", nxt])
                    prev = nxt
                ll = os.path.join(tmp, "stock.ll")
                cmds.append([os.path.join(LLVM_BIN, "mlir-translate"), "--mlir-to-llvmir",
                             prev, "-o", ll])
                opt_ll = os.path.join(tmp, "stock.opt.ll")
                cmds.append([os.path.join(LLVM_BIN, "opt"), "-O2", "-S", ll, "-o", opt_ll])
                cmds.append([os.path.join(LLVM_BIN, "llc"), "-O2", "-filetype=obj",
                             "-relocation-model=pic", opt_ll, "-o",
                             os.path.join(tmp, "stock.o")])
                return cmds

            wq, _ = median_of(q2(h2), args.runs)
            wst, _ = median_of(stock, args.runs)
            ok = wq / wst <= 0.6
            ok_all &= ok
            print(f"H2 end to end: q2-opt {wq:.3f} s vs stock mlir-opt-22 x4 + "
                  f"mlir-translate-22 + opt-22 + llc-22 {wst:.3f} s = {wq / wst:.2f}x"
                  f"  (target <= 0.6x)  {verdict(ok)}")

            print("\nIR growth, unrolled (--unroll --power repeat), H2, n_trotter=1, "
                  "bytes per stage:")
            print(f"{'n_est':>5} " + " ".join(f"{s:>14}" for s in
                  ["0_Input", "1_HLO", "2_Quantum", "3_Buffer", "4_LLVMDialect",
                   "5_LLVMIR", "6_Object"]) + f" {'compile s':>10}")
            for n_est in (1, 2, 3, 4, 5, 6):
                prog = program("h2_0.7414", n_est, 1, "--unroll", "--power", "repeat")
                irdir = os.path.join(tmp, f"ir{n_est}")
                w, _ = run([q2opt, "--qpe-pipeline", prog, "-o",
                            os.path.join(tmp, "u.o"), "--ir-dir", irdir])
                sizes = [os.path.getsize(os.path.join(irdir, f)) for f in sorted(os.listdir(irdir))]
                print(f"{n_est:>5} " + " ".join(f"{s:>14}" for s in sizes) + f" {w:>10.3f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("\noverall:", verdict(ok_all))
    return 0 if ok_all else 1


if __name__ == "__main__":
    sys.exit(main())
