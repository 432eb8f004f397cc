"""Checks a q2-profile pass report (schema q2.profile/3) for the lit tests.

usage: profile_check.py REPORT [--stages "S1;S2;..."] [--input-bytes-of FILE]
                        [--final-bytes-of FILE] [--nested ARG=SYM1,SYM2]
                        [--no-pass-ir] [--trace FILE]

Prints one line per stage ("stage NAME ir=BYTES peak=SOURCE") and per pass
("pass DEPTH ARG on OP[@SYM] ir=BYTES|-"), then "OK".

--stages          the stage names in order, ";"-separated (Input first)
--input-bytes-of  the Input stage's IR bytes/lines equal FILE's (wc -c/-l)
--final-bytes-of  the last stage's IR bytes/lines equal FILE's
--nested ARG=S,.. pass ARG ran once per function S (depth 1, in order)
--no-pass-ir      no pass has ir_after, no stage ir (ir-metrics=false)
--trace FILE      FILE is a Chrome trace with one span per stage and pass
"""
import argparse
import json
import os
import sys


def fail(msg):
    print("profile_check: " + msg, file=sys.stderr)
    sys.exit(1)


def size_of(path):
    data = open(path, "rb").read()
    return len(data), data.count(b"\n")


ap = argparse.ArgumentParser()
ap.add_argument("report")
ap.add_argument("--stages")
ap.add_argument("--input-bytes-of")
ap.add_argument("--final-bytes-of")
ap.add_argument("--nested", action="append", default=[])
ap.add_argument("--no-pass-ir", action="store_true")
ap.add_argument("--trace")
a = ap.parse_args()

r = json.load(open(a.report))
if r.get("schema") != "q2.profile/3" or r.get("tool") != "q2-profile":
    fail("not a q2-profile report: %r %r" % (r.get("schema"), r.get("tool")))
stages = r["phase_b"]["stages"]
passes = r["phase_b"]["passes"]
for s in stages:
    print("stage %s ir=%s peak=%s" % (s["name"], s.get("ir", {}).get("bytes", "-"),
                                      s["peak_source"]))
for p in passes:
    sym = "@" + p["op_symbol"] if p.get("op_symbol") else ""
    print("pass %d %s on %s%s ir=%s" % (p["depth"], p["argument"] or p["name"],
                                        p["op"], sym,
                                        p.get("ir_after", {}).get("bytes", "-")))
if a.stages is not None:
    got = [s["name"] for s in stages]
    if got != a.stages.split(";"):
        fail("stages %s, expected %s" % (got, a.stages))
for s in stages[1:]:
    if s["kind"] != "compile" or s["wall_s"] <= 0 or s["peak_rss_bytes"] <= 0:
        fail("stage %s: kind/time/peak missing" % s["name"])
    # ASan's allocator has no heap statistics to give (lit.cfg.py).
    if s["end"]["heap"]["heap_in_use_bytes"] <= 0 and \
            os.environ.get("Q2_ASAN") != "1":
        fail("stage %s: no heap" % s["name"])
for flag, stage in ((a.input_bytes_of, stages[0]), (a.final_bytes_of, stages[-1])):
    if flag:
        want = size_of(flag)
        got = (stage["ir"]["bytes"], stage["ir"]["lines"])
        if got != want:
            fail("stage %s: ir bytes/lines %s, %s has %s" % (stage["name"], got, flag, want))
for spec in a.nested:
    arg, syms = spec.split("=")
    got = [p.get("op_symbol") for p in passes if p["argument"] == arg and p["depth"] == 1]
    if got != syms.split(","):
        fail("nested %s ran on %s, expected %s" % (arg, got, syms))
with_ir = [p for p in passes if "ir_after" in p] + [s for s in stages if "ir" in s]
if a.no_pass_ir and with_ir:
    fail("%d passes have ir_after with ir-metrics=false" % len(with_ir))
if not a.no_pass_ir and not with_ir:
    fail("no pass has ir_after")
if a.trace:
    t = json.load(open(a.trace))
    spans = [e for e in t["traceEvents"] if e["ph"] == "X"]
    n_stage = sum(e["cat"] == "stage" for e in spans)
    n_pass = sum(e["cat"] == "pass" for e in spans)
    if n_stage != len(stages) or n_pass != len(passes):
        fail("trace has %d stage / %d pass spans, report %d / %d"
             % (n_stage, n_pass, len(stages), len(passes)))
print("OK %d stages %d passes" % (len(stages), len(passes)))
