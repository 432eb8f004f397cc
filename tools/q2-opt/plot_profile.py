#!/usr/bin/env python3
"""Draws a q2-opt profile report (schema q2.profile/3 or /2, docs/report.md) as a PNG.

  /usr/bin/python3 tools/q2-opt/plot_profile.py REPORT.json [-o OUT.png]

Top panel: the RSS timeline (phase_b.timeline.samples) with each stage as a
shaded span and labelled, each stage's own peak (peak_rss_bytes) as a short
bar over its span, and the highest sample annotated with its stage and pass.
Bottom panel: IR size after each stage (phase_b.stages[].ir.bytes, kB = 1e3 bytes, log
scale), labelled with lines and amplification vs the previous stage.

Needs matplotlib (Debian: python3-matplotlib, use /usr/bin/python3). Without
it the script prints why and exits 0 with "skipped", so scripts and tests can
run it unconditionally.
"""
import argparse
import json
import os
import sys


def main():
    ap = argparse.ArgumentParser(description="Plot a q2-opt profile report.")
    ap.add_argument("report")
    ap.add_argument("-o", "--output", help="PNG path (default: REPORT with .png)")
    ap.add_argument("--all", action="store_true",
                    help="also show Phase C (Load/Execute); by default the "
                         "timeline shows the compile stages only")
    args = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")  # no display needed
        import matplotlib.pyplot as plt
    except ImportError as e:
        print("plot_profile: matplotlib is not available to %s (%s); install "
              "python3-matplotlib and run with /usr/bin/python3. skipped"
              % (sys.executable, e))
        return 0
    try:
        with open(args.report) as f:
            r = json.load(f)
    except (OSError, ValueError) as e:
        print("plot_profile: %s: %s" % (args.report, e), file=sys.stderr)
        return 1
    if r.get("schema") not in ("q2.profile/3", "q2.profile/2") \
            or "phase_b" not in r:
        print("plot_profile: %s: not a q2.profile/3 (or /2) report with phase_b"
              % args.report, file=sys.stderr)
        return 1
    out = args.output or os.path.splitext(args.report)[0] + ".png"
    b = r["phase_b"]
    stages = b.get("stages", [])
    samples = (b.get("timeline") or {}).get("samples", [])
    peak = (b.get("timeline") or {}).get("peak")
    if not args.all:
        # Phase C (JIT load, simulator calls) usually lasts far longer than
        # compilation and would squeeze the compile stages into a sliver.
        # Stages are tagged: "input", "compile" or "run" (docs/report.md).
        stages = [s for s in stages if s["kind"] != "run"]
        if stages:
            t_end = stages[-1]["end"]["elapsed_s"]
            samples = [x for x in samples if x["t_s"] <= t_end]
            peak = None  # recomputed from the samples shown
    MB = 1e6  # decimal MB, as in the profile table (docs/report.md)

    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(11, 8.5),
                                   gridspec_kw={"height_ratios": [3, 2]})
    p = r.get("parameters") or {}
    # q2.profile/2 named n_est "n_estimation_wires".
    n_est = p.get("n_est", p.get("n_estimation_wires", "?"))
    fig.suptitle("q2-opt profile: %s  (n_est %s, n_trotter %s, %s terms, %s mode, "
                 "ir_scale %s)" % (p.get("molecule", "?"), n_est,
                                   p.get("n_trotter", "?"), p.get("n_terms", "?"),
                                   p.get("mode", "?"), p.get("ir_scale", "?")))

    # (a) RSS timeline with stage spans.
    colors = plt.get_cmap("tab10")
    for i, s in enumerate(stages):
        t0, t1 = s["begin"]["elapsed_s"], s["end"]["elapsed_s"]
        ax1.axvspan(t0, t1, color=colors(i % 10), alpha=0.18, lw=0)
        ax1.axvline(t0, color="grey", lw=0.6, ls=":")
        ax1.hlines(s["peak_rss_bytes"] / MB, t0, t1, color=colors(i % 10), lw=3)
        # Stage names at staggered heights so short stages stay readable.
        ax1.text((t0 + t1) / 2, 1.0 - 0.07 * (i % 4), s["name"], rotation=0,
                 ha="center", va="top", fontsize=8, transform=ax1.get_xaxis_transform(),
                 color=colors(i % 10))
    if samples:
        ts = [x["t_s"] for x in samples]
        rss = [x["rss_bytes"] / MB for x in samples]
        ax1.plot(ts, rss, "-", color="black", lw=1.2, marker=".", ms=3,
                 label="RSS (timeline, %s ms)" % b["timeline"].get("interval_ms", "?"))
        peak = peak or max(samples, key=lambda x: x["rss_bytes"])
        where = peak.get("stage") or "no stage"
        if peak.get("pass"):
            where += " / " + peak["pass"]
        ax1.annotate(("timeline peak" if args.all else "compile peak") + "  %.1f MB\n(%s)" % (peak["rss_bytes"] / MB, where),
                     xy=(peak["t_s"], peak["rss_bytes"] / MB), xytext=(0.55, 0.35),
                     textcoords="axes fraction", fontsize=9,
                     arrowprops=dict(arrowstyle="->", color="red"), color="red")
    # The stage with the highest own peak and the pass running at its sampled peak.
    if stages:
        top = max(stages, key=lambda s: s["peak_rss_bytes"])
        sp = top.get("sampled_peak") or {}
        ax1.plot([], [], color="grey", lw=3, label="stage peak (hwm/sampled)")
        ax1.text(0.01, 0.04, "highest stage peak: %s %.1f MB (%s)%s"
                 % (top["name"], top["peak_rss_bytes"] / MB, top["peak_source"],
                    ", pass " + sp["pass"] if sp.get("pass") else ""),
                 transform=ax1.transAxes, fontsize=9)
    ax1.set_xlabel("time since profiling epoch [s]")
    ax1.set_ylabel("RSS [MB]")
    ax1.legend(loc="lower right", fontsize=8)
    ax1.grid(alpha=0.3)

    # (b) IR size per stage.
    ir = [s for s in stages if s.get("ir")]
    if ir:
        names = [s["name"] for s in ir]
        kb = [s["ir"]["bytes"] / 1e3 for s in ir]
        bars = ax2.bar(names, kb, color=[colors(stages.index(s) % 10) for s in ir])
        ax2.set_yscale("log")
        ax2.set_ylabel("IR size after stage [kB, log]")
        prev = None
        for bar, s in zip(bars, ir):
            label = "%.1f kB" % (s["ir"]["bytes"] / 1e3)
            if s["ir"].get("kind") != "object":
                label += "\n%d lines" % s["ir"]["lines"]
            if prev:
                label += "\n%.2fx" % (s["ir"]["bytes"] / prev)
            prev = s["ir"]["bytes"]
            ax2.annotate(label, (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                         ha="center", va="bottom", fontsize=8)
        ax2.set_ylim(top=max(kb) * 8)
        ax2.tick_params(axis="x", labelsize=8)
        ax2.grid(axis="y", alpha=0.3)
    else:
        ax2.text(0.5, 0.5, "no IR metrics in the report", ha="center")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print("plot_profile: wrote %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
