"""check_report_columns.py SUMMARY_CSV KEY REPORT_JSON

Checks that summary.csv's report columns of point KEY are the figures of
the point's q2.profile/3 report: the first coefficient set's prob_sum,
energy, exact energy and error, the highest compile-stage peak and the
timeline peak (decimal MB), and IR kB/lines for every stage with an IR
measurement. Prints one line per column group; exits 1 on a mismatch.
"""
import csv
import json
import sys

summary, key, report_path = sys.argv[1:4]
with open(summary, newline="") as fh:
    rows = [r for r in csv.DictReader(fh) if r["key"] == key]
if len(rows) != 1:
    sys.exit(f"check_report_columns: {len(rows)} rows for {key}")
row = rows[0]
with open(report_path) as fh:
    report = json.load(fh)
stages = report["phase_b"]["stages"]
first = report["phase_c"]["sets"][0]
expect = {
    "prob_sum": (first["prob_sum"], 1e-9),
    "energy": (first["energy"], 1e-6),
    "resolution": (first["resolution"], 1e-6),
    "exact_energy": (first["exact_energy"], 1e-6),
    "energy_error": (abs(first["energy"] - first["exact_energy"]), 1e-6),
    "error_resolutions": (first["error_resolutions"], 0.005 + 1e-9),
    "compile_peak_mb": (max(s["peak_rss_bytes"] for s in stages
                            if s["kind"] == "compile") / 1e6, 0.05 + 1e-9),
    "timeline_peak_mb": (report["phase_b"]["timeline"]["peak"]["rss_bytes"]
                         / 1e6, 0.05 + 1e-9),
}
n_ir = 0
for s in stages:
    if s.get("ir"):
        n_ir += 1
        expect["ir_kb_" + s["name"]] = (s["ir"]["bytes"] / 1e3, 0.05 + 1e-9)
        expect["ir_lines_" + s["name"]] = (s["ir"]["lines"], 0)
ok = True
for col, (want, tol) in expect.items():
    got = row.get(col, "")
    if got == "" or abs(float(got) - want) > tol:
        print(f"error: {col} = {got!r}, report says {want}")
        ok = False
print(f"outcome, peaks and IR of {n_ir} stages match the report"
      if ok else "mismatch")
sys.exit(0 if ok else 1)
