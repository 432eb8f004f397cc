"""Summarizes the quantum.gate_table ops of a program for FileCheck: per
table its number of records, the records per kind, the parameter index of
each record in order, and each Pauli rotation as word@wires (wire 0 is the
control, 1 + q system qubit q)."""
import re
import sys

for line in open(sys.argv[1]):
    m = re.search(r'quantum\.gate_table .* kinds \[([^\]]*)\] '
                  r'(?:words "([IXYZ]*)" )?records \[([^\]]*)\]', line)
    if not m:
        continue
    kinds = [k.strip().strip('"') for k in m.group(1).split(",")]
    words = m.group(2) or ""
    r = [int(x) for x in m.group(3).split(",")]
    counts, params, rots = {}, [], []
    pos = 0
    while pos < len(r):
        kind, adj, param, nt, nc, word = r[pos:pos + 6]
        wires = r[pos + 6:pos + 6 + nt + nc]
        counts[kinds[kind]] = counts.get(kinds[kind], 0) + 1
        params.append(str(param))
        if kinds[kind].startswith("pauli_rot"):
            rots.append("%s@%s" % (words[word:word + nt],
                                   ",".join(map(str, wires))))
        pos += 6 + nt + nc
    print("table records %d %s" % (len(params), " ".join(
        "%s=%d" % kv for kv in sorted(counts.items()))))
    print("params " + " ".join(params))
    print("rotations " + " ".join(rots))
