#!/usr/bin/env python3
"""Plots of a q2-profile sweep.

usage: plot_sweep.py SWEEP_OR_MERGE_DIR... [--out DIR]

Reads the point results (DIR/points/*/result.json of a sweep, or
DIR/results.json written by `q2-profile merge --out`) and writes PNGs:
  peak_rss_vs_x.png      peak tree RSS against x = n_est*n_trotter*n_terms
  compile_time_vs_x.png  compile_s: wall time of the report's compile stages
                         (else Phase B+C wall)
  ir_size_per_stage.png  IR bytes per stage per mode (largest ok point)
  amplification.png      IR bytes per stage relative to the input
Plots whose data is missing are skipped with a note. Without matplotlib
(Debian: python3-matplotlib) the script says so and exits 0.
"""
import argparse
import glob
import json
import os
import sys


def load(dirs):
    results = {}
    for d in dirs:
        merged = os.path.join(d, "results.json")
        files = sorted(glob.glob(os.path.join(d, "points", "*", "result.json")))
        if files:
            for f in files:
                with open(f) as fh:
                    r = json.load(fh)
                results[r["key"]] = r
        elif os.path.exists(merged):
            with open(merged) as fh:
                for r in json.load(fh):
                    results[r["key"]] = r
        else:
            sys.exit(f"plot_sweep: {d}: no points/*/result.json or results.json")
    return list(results.values())


def stages_of(r):
    """The report's stage records (q2.profile/3: report.phase_b.stages)."""
    report = r.get("report") or {}
    stages = (report.get("phase_b") or {}).get("stages")
    return stages if isinstance(stages, list) else []


def compile_seconds(r):
    """The point's compile time as in summary.csv's compile_s: the report's
    compile_s, i.e. the sum of wall_s over the compile stages (not Input,
    Load or Execute); else the Phase B+C wall time."""
    report = r.get("report") or {}
    if isinstance(report.get("compile_s"), (int, float)):
        return report["compile_s"], "compile time (compile stages)"
    compile_stages = [s for s in stages_of(r) if s.get("kind") == "compile"]
    if compile_stages:
        return (sum(s["wall_s"] for s in compile_stages),
                "compile time (compile stages)")
    bc = (r.get("phases") or {}).get("BC") or {}
    return bc.get("wall_s"), "Phase B+C wall time (compile + run)"


def stage_ir_bytes(r):
    """[(stage name, IR bytes)] of the stages that have IR (not Load or
    Execute)."""
    out = []
    for s in stages_of(r):
        ir = s.get("ir")
        if isinstance(ir, dict) and isinstance(ir.get("bytes"), (int, float)):
            out.append((str(s.get("name")), ir["bytes"]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--out", help="output directory (default: the first DIR)")
    args = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_sweep: matplotlib is not available (Debian package "
              "python3-matplotlib); skipping plots", file=sys.stderr)
        return 0

    results = load(args.dirs)
    out = args.out or args.dirs[0]
    os.makedirs(out, exist_ok=True)
    modes = sorted({r["mode"] for r in results})
    written = []

    def scatter(name, ylabel, value):
        fig, ax = plt.subplots(figsize=(6, 4))
        any_point = False
        for mode in modes:
            ok = [(r["x"], value(r)) for r in results
                  if r["mode"] == mode and r.get("x") is not None
                  and r["status"] == "ok" and value(r) is not None]
            bad = [(r["x"], value(r)) for r in results
                   if r["mode"] == mode and r.get("x") is not None
                   and r["status"] != "ok" and value(r) is not None]
            if ok:
                ok.sort()
                ax.plot(*zip(*ok), marker="o", label=mode)
                any_point = True
            if bad:
                ax.scatter(*zip(*bad), marker="x", color="red",
                           label=f"{mode} (failed/killed)")
                any_point = True
        if not any_point:
            plt.close(fig)
            print(f"plot_sweep: no data for {name}; skipped", file=sys.stderr)
            return
        ax.set_xlabel("n_est * n_trotter * n_terms")
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
        ax.legend()
        fig.tight_layout()
        path = os.path.join(out, name)
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)

    scatter("peak_rss_vs_x.png", "peak tree RSS (MB)",
            lambda r: r.get("peak_rss_mb"))
    label = compile_seconds(results[0])[1] if results else ""
    scatter("compile_time_vs_x.png", label + " (s)",
            lambda r: compile_seconds(r)[0])

    # IR size per stage: the largest successful point of each mode.
    per_mode = {}
    for mode in modes:
        ok = [r for r in results if r["mode"] == mode and r["status"] == "ok"
              and stage_ir_bytes(r)]
        if ok:
            per_mode[mode] = max(ok, key=lambda r: r.get("x") or 0)
    if per_mode:
        for name, rel in (("ir_size_per_stage.png", False),
                          ("amplification.png", True)):
            fig, ax = plt.subplots(figsize=(7, 4))
            width = 0.8 / len(per_mode)
            for i, (mode, r) in enumerate(sorted(per_mode.items())):
                stages = stage_ir_bytes(r)
                base = stages[0][1] or 1
                ys = [s / base if rel else s for _, s in stages]
                xs = [j + i * width for j in range(len(stages))]
                ax.bar(xs, ys, width, label=f"{mode} ({r['key']})")
                ax.set_xticks([j + 0.4 - width / 2 for j in range(len(stages))])
                ax.set_xticklabels([n for n, _ in stages], rotation=30,
                                   ha="right")
            ax.set_ylabel("IR size / input" if rel else "IR bytes")
            if not rel:
                ax.set_yscale("log")
            ax.legend()
            fig.tight_layout()
            path = os.path.join(out, name)
            fig.savefig(path, dpi=120)
            plt.close(fig)
            written.append(path)
    else:
        print("plot_sweep: no per-stage IR sizes in the reports; skipped "
              "ir_size_per_stage.png and amplification.png", file=sys.stderr)
    for p in written:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
