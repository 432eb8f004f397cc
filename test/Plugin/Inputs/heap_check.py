"""Checks the heap figures of a q2.profile/3 report (docs/report.md "Heap").

  heap_check.py REPORT [--exact | --not-exact] [--spike ARG=MIB]
                [--trace TRACE] [--peak-pass ARG]

--spike: the pass record with argument ARG allocated and freed MIB MiB:
its heap peak is >= MIB MiB above its start, its heap and RSS end where
they started (its RSS delta does not show the spike), and every enclosing
record (stage, adaptor) peaks at least as high. --peak-pass: the report
names ARG as the pass at the heap peak, and its stage.
"""
import argparse
import json
import sys

ap = argparse.ArgumentParser()
ap.add_argument("report")
ap.add_argument("--exact", action="store_true")
ap.add_argument("--not-exact", action="store_true")
ap.add_argument("--spike")
ap.add_argument("--trace")
ap.add_argument("--peak-pass")
a = ap.parse_args()
r = json.load(open(a.report))
b = r["phase_b"]
keys = ("heap_before_bytes", "heap_after_bytes", "heap_allocated_bytes",
        "heap_alloc_count", "heap_peak_bytes", "heap_exact")
want = True if a.exact else False if a.not_exact else None
for rec in b["stages"] + b["passes"]:
    for k in keys:
        assert k in rec, (rec.get("name"), k)
    assert rec["heap_peak_bytes"] >= max(rec["heap_before_bytes"],
                                         rec["heap_after_bytes"]), rec["name"]
    if want is not None:
        assert rec["heap_exact"] is want, (rec["name"], rec["heap_exact"])
    if want is False:
        assert rec["heap_alloc_count"] == 0 and rec["heap_allocated_bytes"] == 0
for k in ("heap_peak_bytes", "heap_peak_pass", "heap_peak_stage",
          "lifetime_heap_peak_bytes", "heap_exact"):
    assert r[k] == b[k], k
if want is not None:
    assert r["heap_exact"] is want
assert r["lifetime_heap_peak_bytes"] >= r["heap_peak_bytes"] > 0
assert max(s["heap_peak_bytes"] for s in b["stages"]) <= r["heap_peak_bytes"]
print("heap keys: %d stages, %d passes, exact %s" % (
    len(b["stages"]), len(b["passes"]), r["heap_exact"]))

if a.spike:
    arg, mib = a.spike.split("=")
    n = int(mib) << 20
    spikes = [p for p in b["passes"] if p["argument"] == arg]
    assert spikes, [p["argument"] for p in b["passes"]]
    for p in spikes:
        assert p["heap_peak_bytes"] - p["heap_before_bytes"] >= n, p
        assert p["heap_allocated_bytes"] >= n and p["heap_alloc_count"] >= 1, p
        assert p["heap_after_bytes"] == p["heap_before_bytes"], p
        assert abs(p["rss_delta_bytes"]) < n // 4, p
        # Nesting: the adaptors around it and its stage peak as high.
        q = p
        while q["parent"] >= 0:
            q = b["passes"][q["parent"]]
            assert q["heap_peak_bytes"] >= p["heap_peak_bytes"], q
            assert q["heap_allocated_bytes"] >= p["heap_allocated_bytes"], q
        st = [s for s in b["stages"]
              if s["first_pass"] <= p["index"] < s["end_pass"]]
        assert len(st) == 1 and st[0]["heap_peak_bytes"] >= p["heap_peak_bytes"]
    p = spikes[0]
    print("spike (%d runs): heap peak +%.1f MiB, RSS delta %.1f MiB" % (
        len(spikes), (p["heap_peak_bytes"] - p["heap_before_bytes"]) / 2**20,
        p["rss_delta_bytes"] / 2**20))
    print("enclosing records peak at least as high")

if a.peak_pass:
    p = b["passes"][b["heap_peak_pass_record"]]
    assert p["argument"] == a.peak_pass == b["heap_peak_pass"], (
        b["heap_peak_pass"], p["argument"])
    assert p["heap_peak_bytes"] == b["heap_peak_bytes"]
    assert b["heap_peak_stage"] == p["stage"]
    print("heap peak in pass %s (stage %s)" % (p["argument"], p["stage"]))

if a.trace:
    t = json.load(open(a.trace))
    ev = t["traceEvents"]
    spans = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "pass"]
    assert spans and all("heap_peak_mb" in e["args"] for e in spans)
    if a.spike:
        arg, mib = a.spike.split("=")
        s = [e for e in spans if e["name"] == arg]
        assert s and all(e["args"]["heap_peak_mb"] * 1e6 >= int(mib) << 20
                         for e in s), s
    stages = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "stage"]
    counters = [e for e in ev if e.get("ph") == "C" and e.get("name") == "Heap"]
    # The live heap at every pass's and stage's two boundaries.
    assert len(counters) == 2 * (len(spans) + len(stages)), (
        len(counters), len(spans), len(stages))
    print("trace: heap_peak_mb on %d pass spans, Heap counter" % len(spans))
