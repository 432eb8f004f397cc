"""Compares the pass names of a q2-profile report with mlir-opt's
--mlir-timing (tree display) of the same pipeline.

usage: pass_names_check.py REPORT TIMING [--timer-may-merge NAME]...

Prints the distinct names of the records of MLIR passes (not steps such as
llvm-codegen, which have no op) in first-seen order ("record NAME"), then
"missing-from-timing NAME" for each record name --mlir-timing does not
print, then "missing-from-report NAME" for each pass --mlir-timing prints
that no record has (analyses "(A) ...", Parser, Output, Rest, Total and
root are not passes, nor pipeline scopes "'op' Pipeline": a pass such as
the inliner runs pipelines without an adaptor), then "checked N names".

--timer-may-merge NAME: MLIR's timer keys a pass's timer by the address of
the pass object, so a pipeline that a pass builds while it runs can land on
a freed pass's address and be merged into that pass's timer. Whether it does
depends on the allocator and the machine (CI printed the pass this check
found missing here). Such a NAME is not reported missing either way.
"""
import json
import re
import sys

import argparse

ap = argparse.ArgumentParser()
ap.add_argument("report")
ap.add_argument("timing")
ap.add_argument("--timer-may-merge", action="append", default=[])
args = ap.parse_args()
report, timing = args.report, args.timing
records = []
for p in json.load(open(report))["phase_b"]["passes"]:
    if p["op"] and p["name"] not in records:
        records.append(p["name"])

# "    0.0093 ( 16.4%)    Inliner": the name follows the last percentage.
line_re = re.compile(r"^\s*(?:-?\d+\.\d+ \(\s*-?\d+\.\d+%\)\s+)+(.*?)\s*$")
printed = []
for line in open(timing):
    m = line_re.match(line)
    if not m:
        continue
    name = m.group(1)
    if name in ("Parser", "Output", "Rest", "Total", "root") or \
            name.startswith("(A) "):
        continue
    if name not in printed:
        printed.append(name)

for r in records:
    print("record " + r)
for r in records:
    if r not in printed and r not in args.timer_may_merge:
        print("missing-from-timing " + r)
for t in printed:
    if t not in records and not re.match(r"^'[^']*' Pipeline$", t):
        print("missing-from-report " + t)
print("checked %d names" % len(records))
