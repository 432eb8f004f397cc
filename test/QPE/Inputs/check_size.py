#!/usr/bin/env python3
"""Program size checks : the rolled program has the same
op and line count for (n_est, n_trotter) = (2, 1) and (10, 20); the unrolled
one (power = time) has exactly n_terms_rot * n_est * n_trotter pauli_rot ops,
with n_terms_rot the non-identity terms of H (order 1)."""
import re
import subprocess
import sys

ham, tmp = sys.argv[1], sys.argv[2]


def gen(n_est, n_trotter, *extra):
    if "--order" not in extra:
        extra = ("--order", "1") + extra
    # The unrolled count below is that of power = time (no longer the default).
    if "--power" not in extra:
        extra = ("--power", "time") + extra
    out = "%s/p_%d_%d%s.mlir" % (tmp, n_est, n_trotter, "".join(extra))
    subprocess.run(["q2-qpe", ham, "--n-est", str(n_est), "--n-trotter",
                    str(n_trotter), "-o", out] + list(extra), check=True)
    return open(out).read()


def body(text):
    # Drop the metadata line (it spells out n_est and n_trotter).
    return [l for l in text.splitlines() if "qpe.metadata = #qpe.metadata<" not in l]


def n_ops(lines):
    return sum(1 for l in lines if re.match(r'\s*(%\S+ = )?"?[a-z_]+\.[a-z_]+', l))


for mode in (("--mode", "fixed"), ("--mode", "dynamic"),
             ("--order", "2"), ("--power", "repeat")):
    small, big = body(gen(2, 1, *mode)), body(gen(10, 20, *mode))
    if (len(small), n_ops(small)) != (len(big), n_ops(big)):
        sys.exit("rolled size changed %s: (2,1) %d lines %d ops, "
                 "(10,20) %d lines %d ops" % (mode, len(small), n_ops(small),
                                              len(big), n_ops(big)))
    if n_ops(small) < 50:
        sys.exit("implausibly small rolled program: %d ops" % n_ops(small))

m = re.search(r"n_terms = (\d+)", gen(1, 1))
words = re.search(r"words = \[([^\]]*)\]", gen(1, 1)).group(1)
n_rot = sum(1 for w in re.findall(r'"([IXYZ]+)"', words) if set(w) != {"I"})
for n_est, n_trotter in [(1, 1), (2, 3), (3, 2), (4, 5)]:
    got = gen(n_est, n_trotter, "--unroll").count("quantum.pauli_rot")
    want = n_rot * n_est * n_trotter
    if got != want:
        sys.exit("unrolled (%d,%d): %d pauli_rot, expected %d"
                 % (n_est, n_trotter, got, want))
print("OK rolled=%d ops, n_rot=%d" % (n_ops(small), n_rot))
