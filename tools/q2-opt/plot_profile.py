#!/usr/bin/env python3
"""Draws a q2 profile report (q2.profile/3 or /2, docs/report.md) as a PNG.

  /usr/bin/python3 tools/q2-opt/plot_profile.py REPORT.json [-o OUT.png]
      [--top N] [--by time|heap|ir] [--all]

Any report: q2-opt's, the q2-profile pass's (any MLIR pipeline), Python's.
`q2-profile show REPORT --png OUT` runs this script.

Top panel: memory over time (the sampled RSS timeline, else RSS at pass and
stage boundaries), with each stage as a shaded span. Stages are numbered in
pipeline order; a span is labelled with its name when wide enough, else with
its number, else not at all (so labels never overlap). The peak is marked
and named. Bottom left: the top N stages or passes by the chosen metric as
horizontal bars (names never overlap), the rest summed in one grey bar.
Bottom right: IR size after each stage, in pipeline order (a line, which
stays readable for any number of stages), the largest growth steps named.
The title shows the QPE parameters only when the report has them.

Needs matplotlib (Debian: python3-matplotlib, use /usr/bin/python3). Without
it the script prints why and exits 0 with "skipped" (exit 3 with
--require), so scripts and tests can run it unconditionally.
"""
import argparse
import json
import os
import sys

MB = 1e6  # decimal MB, as in the profile tables (docs/report.md)


def label_of(p):
    return p.get("argument") or p.get("name", "?")


def title_of(r, path):
    p = r.get("parameters") or {}
    tool = r.get("tool", "q2")
    if p:
        # q2.profile/2 named n_est "n_estimation_wires".
        fields = [("n_est", p.get("n_est", p.get("n_estimation_wires"))),
                  ("n_trotter", p.get("n_trotter")),
                  ("terms", p.get("n_terms")), ("mode", p.get("mode")),
                  ("ir_scale", p.get("ir_scale"))]
        parts = ["%s %s" % (k, v) if k not in ("terms", "mode") else
                 ("%s %s" % (v, k) if k == "terms" else "%s mode" % v)
                 for k, v in fields if v is not None]
        head = "%s profile: %s" % (tool, p.get("molecule") or "program")
        return head + ("  (" + ", ".join(parts) + ")" if parts else "")
    opts = r.get("options") or {}
    pipe = opts.get("pipeline")
    head = "%s profile of %s" % (tool, r.get("input") or os.path.basename(path))
    if pipe:
        pipe = pipe if len(pipe) <= 90 else pipe[:87] + "..."
        head += "\n" + pipe
    return head


def series(b, stages):
    """(t, rss) points and their source."""
    samples = (b.get("timeline") or {}).get("samples") or []
    if samples:
        return ([x["t_s"] for x in samples], [x["rss_bytes"] / MB for x in samples],
                "RSS (sampled, %s ms)" % b["timeline"].get("interval_ms", "?"))
    pts = []
    for p in b.get("passes", []):
        if p.get("adaptor"):
            continue
        pts.append((p["start_s"], p["rss_before_bytes"]))
        pts.append((p["end_s"], p["rss_after_bytes"]))
    for s in stages:
        for k in ("begin", "end"):
            snap = s.get(k) or {}
            if "status" in snap:
                pts.append((snap["elapsed_s"], snap["status"]["vm_rss_bytes"]))
    pts.sort()
    return [t for t, _ in pts], [v / MB for _, v in pts], "RSS (at pass boundaries)"


def ranked(b, stages, by, top):
    """Top `top` rows (label, value) by `by`, plus the rest summed."""
    passes = [p for p in b.get("passes", []) if not p.get("adaptor")]
    rows = {}
    order = []
    last_ir = {}
    for p in passes:
        key = (p.get("stage", ""), label_of(p))
        if key not in rows:
            rows[key] = [0.0, None, 0]
            order.append(key)
        row = rows[key]
        row[2] += 1
        if by == "time":
            row[0] += p.get("wall_s") or 0
        elif by == "heap":
            h = p.get("heap_peak_bytes")
            if h is not None:
                row[1] = max(row[1] or 0, h / MB)
        else:
            ir = p.get("ir_after")
            if ir:
                op = (p.get("op"), p.get("op_symbol", ""))
                if op in last_ir:
                    row[1] = (row[1] or 0) + (ir["bytes"] - last_ir[op]) / 1e3
                last_ir[op] = ir["bytes"]
    vals = []
    for key in order:
        v = rows[key][0] * 1e3 if by == "time" else rows[key][1]
        if v is None:
            continue
        name = key[1] + (" (x%d)" % rows[key][2] if rows[key][2] > 1 else "")
        if key[0] and key[0] != key[1]:
            name += " [%s]" % key[0]
        vals.append((name, v))
    unit = {"time": "wall ms", "heap": "heap peak MB", "ir": "IR growth kB"}[by]
    if not vals and by == "time":
        # No pass records: rank the stages.
        vals = [("%d. %s" % (i + 1, s["name"]), s["wall_s"] * 1e3)
                for i, s in enumerate(stages)]
    vals.sort(key=lambda x: -x[1])
    rest = vals[top:]
    shown = vals[:top]
    if rest:
        shown.append(("%d more" % len(rest), sum(v for _, v in rest)))
    return shown, bool(rest), unit


def main():
    ap = argparse.ArgumentParser(description="Plot a q2 profile report.")
    ap.add_argument("report")
    ap.add_argument("-o", "--output", help="PNG path (default: REPORT with .png)")
    ap.add_argument("--top", type=int, default=15,
                    help="bars for the N largest passes (default 15), the "
                         "rest summed")
    ap.add_argument("--by", choices=("time", "heap", "ir"), default="time",
                    help="rank passes by wall time, heap peak or IR growth")
    ap.add_argument("--all", action="store_true",
                    help="also show Phase C (Load/Execute); by default the "
                         "timeline shows the input and compile stages")
    ap.add_argument("--require", action="store_true",
                    help="exit 3 instead of 0 when matplotlib is missing")
    ap.add_argument("--check-labels", action="store_true",
                    help="exit 1 if any two labels of the drawing overlap "
                         "(for tests)")
    args = ap.parse_args()
    if args.top < 1:
        ap.error("--top must be at least 1")
    try:
        import matplotlib
        matplotlib.use("Agg")  # no display needed
        import matplotlib.pyplot as plt
    except ImportError as e:
        print("plot_profile: matplotlib is not available to %s (%s); install "
              "python3-matplotlib and run with /usr/bin/python3. skipped"
              % (sys.executable, e))
        return 3 if args.require else 0
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
    if not args.all:
        # Phase C (JIT load, simulator calls) usually lasts far longer than
        # compilation and would squeeze the compile stages into a sliver.
        stages = [s for s in stages if s.get("kind") != "run"]

    fig = plt.figure(figsize=(13, 9))
    gs = fig.add_gridspec(2, 2, height_ratios=[3, 3], width_ratios=[3, 2])
    ax1 = fig.add_subplot(gs[0, :])
    ax2 = fig.add_subplot(gs[1, 0])
    ax3 = fig.add_subplot(gs[1, 1])
    fig.suptitle(title_of(r, args.report), fontsize=11)

    # (a) Memory over time, stage spans numbered.
    colors = plt.get_cmap("tab10")
    ts, rss, src = series(b, stages)
    if stages:
        t_end = stages[-1]["end"]["elapsed_s"]
        keep = [i for i, t in enumerate(ts) if t <= t_end + 1e-9]
        ts, rss = [ts[i] for i in keep], [rss[i] for i in keep]
    lo = min([s["begin"]["elapsed_s"] for s in stages] + ts[:1] or [0])
    hi = max([s["end"]["elapsed_s"] for s in stages] + ts[-1:] or [1])
    width = max(hi - lo, 1e-9)
    fig.canvas.draw()
    axis_px = ax1.get_window_extent().width
    for i, s in enumerate(stages):
        t0, t1 = s["begin"]["elapsed_s"], s["end"]["elapsed_s"]
        ax1.axvspan(t0, t1, color=colors(i % 10), alpha=0.16, lw=0)
        if s.get("peak_rss_bytes"):
            ax1.hlines(s["peak_rss_bytes"] / MB, t0, t1, color=colors(i % 10), lw=2.5)
        px = (t1 - t0) / width * axis_px
        text = s["name"] if px > 7 * len(s["name"]) else str(i + 1) if px > 14 else None
        if os.environ.get("Q2_PLOT_LABEL_ALL"):  # tests: what the rule avoids
            text = s["name"]
        if text:
            ax1.text((t0 + t1) / 2, 0.99, text, ha="center", va="top", fontsize=8,
                     transform=ax1.get_xaxis_transform(), color=colors(i % 10),
                     clip_on=True)
    if ts:
        ax1.plot(ts, rss, "-", color="black", lw=1.1, label=src)
        k = max(range(len(rss)), key=lambda i: rss[i])
        where = ""
        peak = (b.get("timeline") or {}).get("peak")
        if peak and abs(peak["t_s"] - ts[k]) < 1e-9:
            where = peak.get("stage", "")
            if peak.get("pass") or peak.get("last_pass"):
                where += " / " + (peak.get("pass") or peak.get("last_pass"))
        else:
            for s in stages:
                if s["begin"]["elapsed_s"] <= ts[k] <= s["end"]["elapsed_s"]:
                    where = s["name"]
        ax1.annotate("peak %.1f MB%s" % (rss[k], "\n(" + where + ")" if where else ""),
                     xy=(ts[k], rss[k]), xytext=(0.6, 0.3), textcoords="axes fraction",
                     fontsize=9, color="red", arrowprops=dict(arrowstyle="->", color="red"))
        ax1.plot([ts[k]], [rss[k]], "x", color="red", ms=9)
    if stages:
        ax1.plot([], [], color="grey", lw=2.5, label="stage peak")
    ax1.set_xlabel("seconds since start (stages numbered in pipeline order)")
    ax1.set_ylabel("RSS [MB]")
    ax1.set_xlim(lo, hi)
    ax1.legend(loc="lower right", fontsize=8)
    ax1.grid(alpha=0.3)

    # (b) Top N by the metric, horizontal bars.
    shown, folded, unit = ranked(b, stages, args.by, args.top)
    if shown:
        names = [n if len(n) <= 48 else n[:22] + "..." + n[-23:] for n, _ in shown]
        vals = [v for _, v in shown]
        cols = ["#4e79a7"] * len(shown)
        if folded:
            cols[-1] = "#bab0ac"
        ax2.barh(range(len(shown)), vals, color=cols)
        ax2.set_yticks(range(len(shown)))
        ax2.set_yticklabels(names, fontsize=max(6, 9 - len(shown) // 10))
        ax2.invert_yaxis()
        ax2.set_xlabel(unit)
        ax2.set_title("top %d by %s%s" % (min(args.top, len(shown)), unit,
                                          ", the rest summed" if folded else ""),
                      fontsize=9)
        ax2.grid(axis="x", alpha=0.3)
    else:
        ax2.text(0.5, 0.5, "no %s in the report" % unit, ha="center",
                 transform=ax2.transAxes)
        ax2.set_axis_off()

    # (c) IR size along the pipeline.
    ir = [(i, s) for i, s in enumerate(stages) if s.get("ir")]
    if ir:
        xs = [i + 1 for i, _ in ir]
        kb = [s["ir"]["bytes"] / 1e3 for _, s in ir]
        ax3.plot(xs, kb, "o-", color="#f28e2b", ms=3)
        ax3.set_yscale("log")
        ax3.set_xlabel("stage (pipeline order)")
        ax3.set_ylabel("IR after the stage [kB, log]")
        steps = sorted(((kb[j] / kb[j - 1] if kb[j - 1] else 0, j)
                        for j in range(1, len(kb))), reverse=True)
        # Name the largest growth steps (at most 4; declutter() drops any
        # that would cover another once the layout is final).
        for ratio, j in steps[:4]:
            if ratio <= 1.05:
                break
            name = ir[j][1]["name"]
            name = name if len(name) <= 26 else name[:24] + "..."
            right = xs[j] > (xs[0] + xs[-1]) / 2  # text toward the middle
            ax3.annotate("%d. %s %.2fx" % (xs[j], name, ratio), (xs[j], kb[j]),
                         textcoords="offset points", xytext=(-4 if right else 4, 4),
                         ha="right" if right else "left", fontsize=7)
        ax3.set_title("IR size per stage (largest growth named)", fontsize=9)
        ax3.grid(alpha=0.3)
    else:
        ax3.text(0.5, 0.5, "no IR metrics in the report", ha="center",
                 transform=ax3.transAxes)
        ax3.set_axis_off()
    fig.tight_layout()
    declutter(fig)
    fig.savefig(out, dpi=110)
    print("plot_profile: wrote %s" % out)
    if args.check_labels:
        return 1 if overlapping_labels(fig) else 0
    return 0


def _overlap(a, b):
    # Touching is fine; a pixel of overlap is not.
    return a.x0 < b.x1 - 1 and b.x0 < a.x1 - 1 and a.y0 < b.y1 - 1 and b.y0 < a.y1 - 1


def declutter(fig):
    """Removes free texts (stage labels, annotations) that would cover a
    tick label or a text drawn before them, axes by axes."""
    if os.environ.get("Q2_PLOT_LABEL_ALL"):
        return
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        kept = [t.get_window_extent(renderer)
                for t in ax.get_yticklabels() + ax.get_xticklabels()
                if t.get_visible() and t.get_text().strip()]
        for t in list(ax.texts):
            box = t.get_window_extent(renderer)
            if any(_overlap(box, k) for k in kept):
                t.remove()
            else:
                kept.append(box)


def overlapping_labels(fig):
    """Prints and counts pairs of visible texts (tick labels, stage labels,
    annotations) whose drawn boxes overlap, per axes."""
    renderer = fig.canvas.get_renderer()
    bad = 0
    for ax in fig.axes:
        texts = [t for t in ax.get_yticklabels() + ax.get_xticklabels() + ax.texts
                 if t.get_visible() and t.get_text().strip()]
        boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in texts]
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i][1], boxes[j][1]
                if _overlap(a, b):
                    print("overlapping labels: %r and %r" % (boxes[i][0], boxes[j][0]))
                    bad += 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
