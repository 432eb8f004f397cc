"""break_report.py IN OUT KEYPATH VALUE: IN with KEYPATH set to VALUE (JSON).

KEYPATH is dotted, with [i] for list elements: phase_b.stages[1].wall_s;
it may also reach into a sweep point's embedded report (report.phase_b...).
"""
import json
import re
import sys

src, dst, path, value = sys.argv[1:5]
doc = json.load(open(src))
node = doc
parts = [p for p in re.split(r"\.|(\[\d+\])", path) if p]
for i, part in enumerate(parts):
    key = int(part[1:-1]) if part.startswith("[") else part
    if i == len(parts) - 1:
        node[key] = json.loads(value)
    else:
        node = node[key]
json.dump(doc, open(dst, "w"), indent=1)
