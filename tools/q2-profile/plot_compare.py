#!/usr/bin/env python3
"""Before/after bars of a `q2-profile compare` result (schema q2.compare/1).

usage: plot_compare.py COMPARE.json -o OUT.png

One panel per metric (wall time, peak RSS, heap, IR size); per stage (for
a sweep: per point, the compile total) a bar for A and one for B (medians),
with the runs' min-max as error bars and regressions marked. `q2-profile
compare --png` runs this; it exits 3 when matplotlib is not available.
"""
import argparse
import json
import sys

PANELS = [("wall_s", "wall time (s)", 1.0),
          ("peak_rss_bytes", "peak RSS (MB)", 1.0 / 2**20),
          ("heap_bytes", "heap after (MB)", 1.0 / 2**20),
          ("ir_bytes", "IR size (KB)", 1.0 / 1024)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("compare")
    ap.add_argument("-o", "--out", required=True)
    a = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_compare.py: matplotlib is not available", file=sys.stderr)
        return 3
    r = json.load(open(a.compare))
    sweep = r["a"]["kind"] == "sweep"
    # Rows to draw: stages (reports) or the per-point totals (sweeps).
    rows = [x for x in r["rows"]
            if (x["kind"] == "total" if sweep else x["kind"] == "stage")]
    labels = []
    for x in rows:
        lab = x["point"] if sweep else x["name"]
        if lab not in labels:
            labels.append(lab)
    fig, axes = plt.subplots(len(PANELS), 1, figsize=(max(6, 1.1 * len(labels) + 2), 3 * len(PANELS)),
                             squeeze=False)
    for ax, (metric, title, scale) in zip(axes[:, 0], PANELS):
        by = {(x["point"] if sweep else x["name"]): x for x in rows if x["metric"] == metric}
        xs = range(len(labels))
        for off, side, color in ((-0.2, "a", "#4c72b0"), (0.2, "b", "#dd8452")):
            vals, lo, hi = [], [], []
            for lab in labels:
                x = by.get(lab)
                runs = (x or {}).get(side + "_runs") or []
                v = (x or {}).get(side)
                v = 0 if v is None else v * scale
                vals.append(v)
                lo.append(v - min(runs) * scale if runs else 0)
                hi.append(max(runs) * scale - v if runs else 0)
            name = "A: " + r["a"]["spec"] if side == "a" else "B: " + r["b"]["spec"]
            ax.bar([i + off for i in xs], vals, 0.4, yerr=[lo, hi], color=color,
                   label=name, capsize=2)
        for i, lab in enumerate(labels):
            x = by.get(lab)
            if x and x["verdict"] == "regression":
                ax.annotate("worse", (i + 0.2, (x["b"] or 0) * scale), ha="center",
                            va="bottom", color="red", fontsize=8)
        ax.set_title(title)
        if any(by.get(l) and by[l]["a"] and by[l]["b"] and
               max(by[l]["a"], by[l]["b"]) > 20 * max(min(by[l]["a"], by[l]["b"]), 1e-12)
               for l in labels):
            ax.set_yscale("log")
        ax.set_xticks(list(xs))
        ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
    axes[0, 0].legend(fontsize=8)
    fig.suptitle("q2-profile compare: %s" % r["verdict"])
    fig.tight_layout()
    fig.savefig(a.out, dpi=100)
    return 0


if __name__ == "__main__":
    sys.exit(main())
