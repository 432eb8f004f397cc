"""Writes a dense synthetic FCIDUMP: every integral non-zero.

usage: dense_fcidump.py NORB NELEC SEED OUT

h is symmetric with h_pp in [-2.5, -0.5] and |h_pq| <= 0.1 off the diagonal;
(pq|rs) = sum_L B^L_pq B^L_rs for random symmetric B^L (so the two-electron
part is positive semi-definite, as for real molecules). Only the unique
integrals (i>=j, k>=l, ij>=kl) are written, as psi4 does.
"""
import random
import sys

norb, nelec, seed, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rng = random.Random(seed)
n_aux = 4
b = []
for _ in range(n_aux):
    m = [[0.0] * norb for _ in range(norb)]
    for p in range(norb):
        for q in range(p + 1):
            m[p][q] = m[q][p] = rng.uniform(-0.3, 0.3) + (0.5 if p == q else 0.0)
    b.append(m)
lines = ["&FCI", "NORB=%d," % norb, "NELEC=%d," % nelec, "MS2=0,", "UHF=.FALSE.,",
         "ORBSYM=" + ",".join("1" * norb) + ",", "ISYM=1,", "&END"]
pairs = [(i, j) for i in range(1, norb + 1) for j in range(1, i + 1)]
for a, (i, j) in enumerate(pairs):
    for (k, l) in pairs[: a + 1]:
        v = sum(bl[i - 1][j - 1] * bl[k - 1][l - 1] for bl in b)
        lines.append("%24.16E %4d %4d %4d %4d" % (v, i, j, k, l))
for (i, j) in pairs:
    v = rng.uniform(-2.5, -0.5) if i == j else rng.uniform(-0.1, 0.1)
    lines.append("%24.16E %4d %4d %4d %4d" % (v, i, j, 0, 0))
lines.append("%24.16E %4d %4d %4d %4d" % (1.5, 0, 0, 0, 0))
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
