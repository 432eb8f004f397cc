#!/usr/bin/env python3
"""Checks a q2.profile/2 report's per-pass IR figures against an independent
print: the `--mlir-print-ir-after-all` dumps of the same pipeline run plain
(one thread). Each dump is what the pass ran on, printed whole by MLIR
(the module after a module pass, the function in its local scope after a
function pass), followed by "\\n\\n"; the report counts the print plus one
'\\n'. Every pass record with ir_after must match its dump in bytes and
lines, in the order the passes finished (adaptors have neither; a pass
that runs a pipeline of its own, sparsification-and-bufferization, is
dumped after the passes it ran).

Usage: ir_after_all_check.py REPORT DUMPS   (exit 1 and one line on a mismatch)
Prints "passes=N ok" and, per pass argument, how many records were checked.
"""
import collections
import json
import re
import sys

HEADER = re.compile(r"^// -----// IR Dump After .*? //----- //\n", re.M)


def main():
    report, dumps = sys.argv[1], sys.argv[2]
    text = open(dumps).read()
    starts = [m for m in HEADER.finditer(text)]
    blocks = [text[m.end():(starts[i + 1].start() if i + 1 < len(starts) else len(text))]
              for i, m in enumerate(starts)]
    passes = sorted((p for p in json.load(open(report))["phase_b"]["passes"]
                     if p.get("ir_after")),
                    key=lambda p: (p["end_s"], -p["depth"]))
    if len(passes) != len(blocks):
        sys.exit("%d pass records with ir_after, %d dumps" % (len(passes), len(blocks)))
    per = collections.Counter()
    for i, (p, b) in enumerate(zip(passes, blocks)):
        want = (len(b.encode()) - 1, b.count("\n") - 1)
        got = (p["ir_after"]["bytes"], p["ir_after"]["lines"])
        if want != got:
            sys.exit("record %d (%s on %s %s): report says %d bytes %d lines, "
                     "the print has %d bytes %d lines"
                     % (p["index"], p["argument"], p["op"], p.get("op_symbol", ""),
                        got[0], got[1], want[0], want[1]))
        per[p["argument"]] += 1
    print("passes=%d ok" % len(passes))
    for arg, n in per.items():
        print("%s %d" % (arg, n))


if __name__ == "__main__":
    main()
