"""Checks that q2-opt's table, footer and trace show report bytes / 1e6."""
import json
import re
import sys

out, report, trace = sys.argv[1:4]
text = open(out).read()
r = json.load(open(report))
stages = {s["name"]: s for s in r["phase_b"]["stages"]}
rows = 0
distinguished = 0
for line in text.splitlines():
    f = line.split()
    if len(f) > 6 and f[0] in stages and f[5] in ("hwm", "smp"):
        s = stages[f[0]]
        # RSS MB, Peak MB, Heap MB, HeapPk MB as printed (%.1f) from the
        # report's bytes.
        for printed, b in ((f[3], s["end"]["status"]["vm_rss_bytes"]),
                           (f[4], s["peak_rss_bytes"]),
                           (f[6], s["heap_after_bytes"]),
                           (f[7], s["heap_peak_bytes"])):
            assert printed == "%.1f" % (b / 1e6), (line, printed, b)
            # And not MiB (4.9 % apart: distinguishable at one decimal from
            # ~2 MB up; the heap of a small program may be below that).
            mib = "%.1f" % (b / 2**20)
            if mib != "%.1f" % (b / 1e6):
                assert printed != mib, (line, printed, b)
                distinguished += 1
        rows += 1
assert distinguished > 0  # RSS alone is ~100 MB: the check has teeth.
print("table rows %d, all peaks decimal MB" % rows)
m = re.search(r"lifetime peak RSS: ([0-9.]+) MB", text)
assert m.group(1) == "%.1f" % (r["lifetime_peak_rss_bytes"] / 1e6), m.group(0)
m = re.search(r"heap peak: ([0-9.]+) MB.*; lifetime heap peak ([0-9.]+) MB",
              text)
assert m.group(1) == "%.1f" % (r["heap_peak_bytes"] / 1e6), m.group(0)
assert m.group(2) == "%.1f" % (r["lifetime_heap_peak_bytes"] / 1e6), m.group(0)
print("footer decimal MB")
t = json.load(open(trace))
events = t["traceEvents"] if isinstance(t, dict) else t
checked = 0
for e in events:
    a = e.get("args") or {}
    if e.get("ph") == "X" and "peak_rss_mb" in a and e.get("name") in stages:
        assert abs(a["peak_rss_mb"] - stages[e["name"]]["peak_rss_bytes"] / 1e6) < 1e-6, e
        checked += 1
assert checked > 0
print("trace decimal MB")
