#!/usr/bin/env python3
"""The HTML report in a real browser (ctest test `html-chromium`).

  check_page.py --bin BUILD/bin --work DIR [--chromium PATH] [--fixtures DIR]

Writes pages with `q2-profile html` (a q2-profile pass report with exact-heap
fields, two reports compared, a sweep, and a synthetic report of 10,000
passes) and loads each in headless Chromium (Debian's chromium-headless-shell
or chromium, fresh profile, no network): no script error may be logged, the
page must say it rendered (body[data-q2-status=ok]), and the DOM must hold the
expected pass names and the peak figure. A screenshot of each page is saved
in DIR. Finally the same checks must FAIL on broken pages (a script error, a
missing plotly.js, a wrong peak), or the test itself is broken.

Exit 0 when all hold, 1 otherwise, 77 (skipped) without a Chromium.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--mute-audio",
         "--enable-logging=stderr", "--v=0", "--hide-scrollbars"]


def find_chromium(given):
    for c in ([given] if given else []) + ["chromium-headless-shell", "chromium",
                                           "/usr/lib/chromium/chromium-headless-shell"]:
        p = shutil.which(c) if c else None
        if p:
            return p
    return None


def browse(chromium, page, args, timeout=120):
    """Runs Chromium on `page` with a fresh profile; (stdout, stderr, seconds)."""
    with tempfile.TemporaryDirectory(prefix="q2-chromium-") as profile:
        cmd = [chromium] + FLAGS + ["--user-data-dir=" + profile] + args + \
              ["file://" + os.path.abspath(page)]
        t0 = time.monotonic()
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           errors="replace")
        return p.stdout, p.stderr, time.monotonic() - t0


def console_errors(stderr):
    """Console messages that are errors: uncaught exceptions, console.error."""
    bad = []
    for line in stderr.splitlines():
        if "CONSOLE" in line and ("Uncaught" in line or ":ERROR:" in line or
                                  "Error" in line):
            bad.append(line.strip())
    return bad


def load(chromium, page, shot=None):
    """(DOM, Chromium's log, seconds): one browser start dumps the DOM and,
    with `shot`, saves a screenshot. The DOM is complete when it is dumped:
    the page renders synchronously, in its last script."""
    args = ["--dump-dom"]
    if shot:
        args += ["--screenshot=" + shot, "--window-size=1400,2400"]
    return browse(chromium, page, args)


def problems_of(dom, err, expect_names, expect_peak, shot=None):
    """Problems found on a loaded page (empty: it is fine)."""
    problems = []
    if not dom.strip():
        problems.append("no DOM dumped (Chromium said: %s)" % err.strip()[-400:])
    status = re.search(r'<body[^>]*data-q2-status="([a-z]+)"', dom)
    if not status or status.group(1) != "ok":
        problems.append("the page did not render (data-q2-status=%s)"
                        % (status.group(1) if status else "missing"))
    errors = re.search(r'<pre id="q2-errors"[^>]*>(.*?)</pre>', dom, re.S)
    if errors and errors.group(1).strip():
        problems.append("script errors on the page: " + errors.group(1).strip()[:400])
    for line in console_errors(err):
        problems.append("console: " + line[:300])
    for name in expect_names:
        if name not in dom:
            problems.append("pass name %r is not in the DOM" % name)
    if expect_peak:
        m = re.search(r'id="peak-rss"[^>]*>([^<]*)<', dom)
        got = m.group(1) if m else None
        if got != expect_peak:
            problems.append("peak figure: expected %r, the page shows %r"
                            % (expect_peak, got))
    if "<svg" not in dom or "main-svg" not in dom:
        problems.append("no plotly chart was drawn")
    if shot and (not os.path.exists(shot) or os.path.getsize(shot) < 10000):
        problems.append("no screenshot written (%s)" % err.strip()[-300:])
    return problems


def peak_text(report):
    """What the page's peak card must say: the highest compile-stage peak."""
    peaks = [s["peak_rss_bytes"] for s in report["phase_b"]["stages"]
             if s["kind"] == "compile"]
    return "%.1f MB" % (max(peaks) / 1e6)


def big_report(base, n):
    """`base` with its passes repeated to `n` (a 10^4-pass pipeline)."""
    r = json.loads(json.dumps(base))
    b = r["phase_b"]
    passes = [p for p in b["passes"] if p["parent"] == -1 and not p["adaptor"]]
    out, t = [], 0.0
    for i in range(n):
        p = dict(passes[i % len(passes)])
        p["index"] = i
        p["start_s"] = t
        p["wall_s"] = p["self_wall_s"] = p["cpu_s"] = 0.0005 + (i % 7) * 1e-4
        t += p["wall_s"]
        p["end_s"] = t
        p["rss_after_bytes"] = p["rss_before_bytes"] = 100_000_000 + (i % 500) * 100_000
        p["stage"] = "big"
        out.append(p)
    st = dict(b["stages"][1])
    st["name"] = "big"
    st["index"] = 1
    st["first_pass"], st["end_pass"] = 0, n
    st["wall_s"] = st["cpu_s"] = t
    st["begin"] = dict(st["begin"], elapsed_s=0.0)
    st["end"] = dict(st["end"], elapsed_s=t)
    b["stages"] = [b["stages"][0], st]
    b["passes"] = out
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True, help="directory of q2-profile")
    ap.add_argument("--work", required=True)
    ap.add_argument("--chromium")
    ap.add_argument("--fixtures", default=os.path.join(HERE, "Inputs"))
    ap.add_argument("--stub", default=os.path.join(HERE, "..", "Orchestrator", "Inputs", "stub.sh"))
    a = ap.parse_args()
    chromium = find_chromium(a.chromium)
    if not chromium:
        print("html-chromium: no chromium-headless-shell or chromium "
              "(scripts/setup.sh installs chromium-headless-shell); skipped")
        return 77
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    q2p = os.path.join(a.bin, "q2-profile")
    env = dict(os.environ, PATH=a.bin + os.pathsep + os.environ.get("PATH", ""))

    def html(inputs, out, *extra):
        subprocess.run([q2p, "html"] + inputs + ["-o", out] + list(extra),
                       check=True, env=env)
        return out

    probe = subprocess.run([q2p, "html", os.path.join(a.fixtures, "sparse-report-b.json"),
                            "-o", os.path.join(a.work, "probe.html")],
                           capture_output=True, text=True, env=env)
    if "built without plotly.js" in probe.stderr:
        print("html-chromium: this build has no plotly.js (install python3-plotly "
              "and reconfigure); skipped")
        return 77

    heap = os.path.join(a.fixtures, "sparse-heap-report.json")
    other = os.path.join(a.fixtures, "sparse-report-b.json")
    rep = json.load(open(heap))
    names = ["sparsification-and-bufferization", "convert-to-llvm", "canonicalize"]
    pages = [("report", html([heap], os.path.join(a.work, "report.html")), names, peak_text(rep)),
             ("compare", html([other, heap], os.path.join(a.work, "compare.html")), names, peak_text(json.load(open(other))))]
    # A sweep (stand-ins for q2-qpe and q2-opt, as in the lit sweep tests).
    sw = os.path.join(a.work, "sweep")
    subprocess.run([q2p, "sweep", "--out", sw, "--molecule", "h2=" + a.stub,
                    "--grid", "2x1,2x3,3x5", "--modes", "fixed,dynamic", "--wall-s", "10",
                    "--no-progress", "--phase-a",
                    "/bin/sh %s A {mode} {n_est} {n_trotter} {prog} %s/log" % (a.stub, a.work),
                    "--phase-bc",
                    "/bin/sh %s BC {mode} {n_est} {n_trotter} {report} %s/log" % (a.stub, a.work)],
                   env=env, capture_output=True)
    pages.append(("sweep", html([sw], os.path.join(a.work, "sweep.html")), ["h2-fixed-e2-t1"], None))
    big = os.path.join(a.work, "big.json")
    json.dump(big_report(rep, 10000), open(big, "w"))
    t0 = time.monotonic()
    pages.append(("10k passes", html([big], os.path.join(a.work, "big.html")), names[1:2], None))
    gen = time.monotonic() - t0

    failed = False
    for label, page, expect, peak in pages:
        shot = os.path.join(a.work, os.path.splitext(os.path.basename(page))[0] + ".png")
        dom, err, secs = load(chromium, page, shot)
        problems = problems_of(dom, err, expect, peak, shot)
        if label == "report":
            report_dom = (dom, err)
        size = os.path.getsize(page) / 1e6
        print("%-11s %5.1f MB  loaded in %5.1f s  %s" % (label, size, secs,
              "FAILED" if problems else "ok" + (", screenshot " + shot if shot else "")))
        for p in problems:
            print("    " + p)
        failed |= bool(problems)
        if label == "10k passes":
            print("            (written by q2-profile html in %.1f s)" % gen)
            if secs > 60:
                print("    the 10k-pass page took %.0f s to load" % secs)
                failed = True

    # The checks must catch broken pages.
    good = open(pages[0][1], encoding="utf-8").read()
    start = 'var data = JSON.parse(document.getElementById("q2-data").textContent);'
    broken = {
        "uncaught script error": good.replace(start, "undefinedFunction(); " + start, 1),
        "error while rendering": good.replace("function renderReport(box, v) {",
                                              "function renderReport(box, v) { v.tree = null;", 1),
        "no plotly.js": re.sub(r"<script>\s*/\*\*\s*\* plotly\.js.*?</script>", "<script></script>", good, count=1, flags=re.S),
        "wrong peak": None,  # the good page, checked against another peak
    }
    for what, text in broken.items():
        if text == good:
            print("self-test: could not break the page for %r" % what)
            failed = True
            continue
        if text is None:
            problems = problems_of(report_dom[0], report_dom[1], names, "0.0 MB")
        else:
            path = os.path.join(a.work, "broken-%s.html" % what.replace(" ", "-"))
            open(path, "w", encoding="utf-8").write(text)
            dom, err, _ = load(chromium, path)
            problems = problems_of(dom, err, names, pages[0][3])
        print("broken page (%s): %s" % (what, "caught: " + problems[0][:120] if problems
                                        else "NOT CAUGHT"))
        failed |= not problems
    print("html-chromium: %s (%s)" % ("FAILED" if failed else "passed", chromium))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
