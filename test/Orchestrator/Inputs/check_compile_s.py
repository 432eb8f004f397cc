"""check_compile_s.py SUMMARY_CSV KEY REPORT_JSON

REPORT_JSON is the point's report.json, or its result.json (then the report
embedded in it).

Checks that the summary's compile_s of point KEY is the sum of wall_s over
the compile stages of the point's q2.profile/3 report (to the CSV's three
decimals), and clearly below the sum over all stages (Input, Load and
Execute are not compilation). Prints the figures; exits 1 on a mismatch.
"""
import csv
import json
import sys

summary, key, report_path = sys.argv[1:4]
with open(summary, newline="") as fh:
    rows = [r for r in csv.DictReader(fh) if r["key"] == key]
if len(rows) != 1:
    sys.exit(f"check_compile_s: {len(rows)} rows for {key} in {summary}")
compile_s = float(rows[0]["compile_s"])

with open(report_path) as fh:
    report = json.load(fh)
if report.get("schema") == "q2.sweep.point/1":
    report = report["report"]
stages = report["phase_b"]["stages"]
compile_sum = sum(s["wall_s"] for s in stages if s["kind"] == "compile")
all_sum = sum(s["wall_s"] for s in stages)
n_compile = sum(1 for s in stages if s["kind"] == "compile")

print(f"compile_s {compile_s:.3f} = sum of the {n_compile} compile stages "
      f"{compile_sum:.6f} < sum of all {len(stages)} stages {all_sum:.6f}")
ok = True
if abs(compile_s - compile_sum) > 0.0005 + 1e-9:
    print("error: compile_s is not the sum of the compile stages")
    ok = False
# One unit of the CSV's resolution below: what the sum over all stages
# would have printed cannot pass.
if not compile_s <= all_sum - 0.001:
    print("error: compile_s is not below the sum over all stages")
    ok = False
sys.exit(0 if ok else 1)
