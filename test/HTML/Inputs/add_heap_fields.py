#!/usr/bin/env python3
"""add_heap_fields.py IN OUT: IN (a q2-profile report) with the exact-heap
keys filled in (docs/report.md: per pass and stage heap_before_bytes,
heap_after_bytes, heap_allocated_bytes, heap_alloc_count, heap_peak_bytes,
heap_exact; top level heap_peak_bytes, heap_peak_pass, heap_peak_stage).

The figures are made up (deterministic, from the IR sizes the report has),
so that the views are tested on a report that has these keys whatever the
build measures; sparse-heap-report.json was made so from a real run of the
sparsifier pipeline on sparse-kernels.mlir.
"""
import json
import sys

r = json.load(open(sys.argv[1]))
b = r["phase_b"]
live = 2_000_000
peak = (0, "", "")
for p in b["passes"]:
    if p.get("adaptor"):
        continue
    ir = (p.get("ir_after") or {}).get("bytes", 1000)
    before = live
    allocated = 40 * ir + 1000 * (p["index"] % 13)
    live = max(1_000_000, live + (ir * 3 if p["index"] % 4 else -ir))
    top = max(before, live) + allocated // 2
    p.update(heap_before_bytes=before, heap_after_bytes=live,
             heap_allocated_bytes=allocated, heap_alloc_count=allocated // 48,
             heap_peak_bytes=top, heap_exact=True)
    if top > peak[0]:
        peak = (top, p.get("argument") or p["name"], p["stage"])
for s in b["stages"]:
    ps = [p for p in b["passes"][s["first_pass"]:s["end_pass"]] if "heap_peak_bytes" in p]
    s["heap_exact"] = True
    if ps:
        s["heap_before_bytes"] = ps[0]["heap_before_bytes"]
        s["heap_after_bytes"] = ps[-1]["heap_after_bytes"]
        s["heap_allocated_bytes"] = sum(p["heap_allocated_bytes"] for p in ps)
        s["heap_alloc_count"] = sum(p["heap_alloc_count"] for p in ps)
        s["heap_peak_bytes"] = max(p["heap_peak_bytes"] for p in ps)
r["heap_peak_bytes"], r["heap_peak_pass"], r["heap_peak_stage"] = peak
json.dump(r, open(sys.argv[2], "w"), indent=1)
