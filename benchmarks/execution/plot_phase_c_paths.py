#!/usr/bin/env python3
"""Plots Phase C time and peak memory per call against system qubits for the
state-vector and subspace paths, from the rows that

  python3 benchmarks/execution/phase_c_bench.py --sections scaling \
      --scaling-json rows.json

writes:

  python3 benchmarks/execution/plot_phase_c_paths.py rows.json \
      -o docs/images/phase_c_paths.png
"""
import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rows")
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args()
    with open(args.rows) as f:
        rows = json.load(f)
    if not rows:
        sys.exit("plot_phase_c_paths: no rows in %s" % args.rows)
    fig, (ax_t, ax_m) = plt.subplots(1, 2, figsize=(11, 4.2))
    styles = {"state vector": ("tab:red", "s", "state vector"),
              "subspace": ("tab:blue", "o", "subspace paths (default)")}
    for path, (color, marker, label) in styles.items():
        pts = sorted((r["n_system"], r["call_s"], r["peak_bytes"] / 1e9,
                      r["molecule"], r.get("source"))
                     for r in rows if r["path"] == path)
        if not pts:
            continue
        # One point per system size: the slowest molecule of that size.
        best = {}
        for q, t, m, name, src in pts:
            if q not in best or t > best[q][0]:
                best[q] = (t, m, name, src)
        qs = sorted(best)
        ax_t.plot(qs, [best[q][0] for q in qs], marker=marker, color=color,
                  label=label)
        ax_m.plot(qs, [best[q][1] for q in qs], marker=marker, color=color,
                  label=label)
        for q in qs:
            t, m, name, src = best[q]
            note = name + (" *" if src else "")
            ax_t.annotate(note, (q, t), textcoords="offset points",
                          xytext=(4, 4), fontsize=7, color=color)
            ax_m.annotate(note, (q, m), textcoords="offset points",
                          xytext=(4, 4), fontsize=7, color=color)
    for ax, title, unit in ((ax_t, "time per call", "s"),
                            (ax_m, "peak RSS of the call's process", "GB")):
        ax.set_yscale("log")
        ax.set_xlabel("system qubits (q2-qpe defaults: + 11..16 estimation)")
        ax.set_ylabel(unit)
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.text(0.01, 0.01, "* state vector of water (14 q): issue 37's "
             "measurement (not rerun: 17.4 GB)", fontsize=7)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    tmp = args.output + ".tmp.png"
    fig.savefig(tmp, dpi=110)
    os.replace(tmp, args.output)
    print("wrote", args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
