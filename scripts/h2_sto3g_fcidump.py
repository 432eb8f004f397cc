#!/usr/bin/python3
"""H2 / STO-3G FCIDUMPs without psi4: integrals of s-type Gaussians, RHF, MOs.

    /usr/bin/python3 scripts/h2_sto3g_fcidump.py OUTDIR R1 R2 ...   (Angstrom)
    /usr/bin/python3 scripts/h2_sto3g_fcidump.py --check FCIDUMP R  (compare)

Writes OUTDIR/h2_<R>.FCIDUMP (Knowles-Handy format, like the psi4 files in
examples/hamiltonians) and prints, per bond length, the RHF energy and the
full-CI energy of the 2x2 CI in {sigma_g^2, sigma_u^2} (an independent check of
the project's exact solver). Only numpy; formulas in closed form (Szabo &
Ostlund, appendix A): overlap, kinetic, nuclear attraction and electron
repulsion of normalised s Gaussians, with the Boys function F0.
"""
import math
import sys

import numpy as np

BOHR_PER_ANGSTROM = 1.0 / 0.52917721067  # CODATA 2014, as psi4 1.3
# STO-3G hydrogen 1s (zeta = 1.24): exponents and contraction coefficients.
ALPHA = np.array([3.42525091, 0.62391373, 0.16885540])
COEF = np.array([0.15432897, 0.53532814, 0.44463454])


def boys0(t):
    if t < 1e-12:
        return 1.0 - t / 3.0
    return 0.5 * math.sqrt(math.pi / t) * math.erf(math.sqrt(t))


def norm(a):
    return (2.0 * a / math.pi) ** 0.75


def contracted(centres):
    """Per basis function: list of (coefficient * norm, exponent, centre)."""
    return [[(c * norm(a), a, np.array(C)) for a, c in zip(ALPHA, COEF)]
            for C in centres]


def one_electron(basis, nuclei):
    n = len(basis)
    S, T, V = np.zeros((n, n)), np.zeros((n, n)), np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            for ci, a, A in basis[i]:
                for cj, b, B in basis[j]:
                    p = a + b
                    ab2 = float(np.dot(A - B, A - B))
                    K = math.exp(-a * b / p * ab2)
                    s = (math.pi / p) ** 1.5 * K
                    S[i, j] += ci * cj * s
                    T[i, j] += ci * cj * a * b / p * (3 - 2 * a * b / p * ab2) * s
                    P = (a * A + b * B) / p
                    for Z, C in nuclei:
                        pc2 = float(np.dot(P - C, P - C))
                        V[i, j] += ci * cj * (-Z) * 2 * math.pi / p * K * boys0(p * pc2)
    return S, T, V


def eri(basis):
    n = len(basis)
    g = np.zeros((n, n, n, n))
    for i in range(n):
        for j in range(n):
            for k in range(n):
                for l in range(n):
                    v = 0.0
                    for ci, a, A in basis[i]:
                        for cj, b, B in basis[j]:
                            p = a + b
                            P = (a * A + b * B) / p
                            Kab = math.exp(-a * b / p * float(np.dot(A - B, A - B)))
                            for ck, c, C in basis[k]:
                                for cl, d, D in basis[l]:
                                    q = c + d
                                    Q = (c * C + d * D) / q
                                    Kcd = math.exp(-c * d / q * float(np.dot(C - D, C - D)))
                                    t = p * q / (p + q) * float(np.dot(P - Q, P - Q))
                                    v += (ci * cj * ck * cl * 2 * math.pi ** 2.5 /
                                          (p * q * math.sqrt(p + q)) * Kab * Kcd * boys0(t))
                    g[i, j, k, l] = v  # chemists' (ij|kl)
    return g


def h2(r_angstrom):
    """MO integrals, nuclear repulsion, RHF and FCI energies of H2 at r."""
    r = r_angstrom * BOHR_PER_ANGSTROM
    centres = [(0.0, 0.0, 0.0), (0.0, 0.0, r)]
    basis = contracted(centres)
    nuclei = [(1.0, np.array(c)) for c in centres]
    S, T, V = one_electron(basis, nuclei)
    Hcore = T + V
    g = eri(basis)
    enuc = 1.0 / r
    # RHF (one doubly occupied orbital): SCF on the symmetric orthogonalised
    # basis; for H2 it converges to sigma_g in one step, kept general anyway.
    s, U = np.linalg.eigh(S)
    X = U @ np.diag(s ** -0.5) @ U.T
    D = np.zeros_like(S)
    for _ in range(100):
        J = np.einsum('ijkl,kl->ij', g, D)
        K = np.einsum('ikjl,kl->ij', g, D)
        F = Hcore + 2 * J - K
        e, Cp = np.linalg.eigh(X.T @ F @ X)
        C = X @ Cp
        Dn = np.outer(C[:, 0], C[:, 0])
        if np.abs(Dn - D).max() < 1e-13:
            D = Dn
            break
        D = Dn
    # Fix the arbitrary MO signs: largest-magnitude AO coefficient positive
    # on atom 0's side for sigma_g, on atom 0 for sigma_u.
    for m in range(C.shape[1]):
        if C[0, m] < 0:
            C[:, m] = -C[:, m]
    h = C.T @ Hcore @ C
    G = np.einsum('pi,qj,rk,sl,pqrs->ijkl', C, C, C, C, g)
    e_hf = 2 * h[0, 0] + G[0, 0, 0, 0] + enuc
    # 2x2 CI in the singlet Sigma_g+ space {|g g|, |u u|}.
    e_dd = 2 * h[1, 1] + G[1, 1, 1, 1] + enuc
    k = G[0, 1, 0, 1]
    ci = np.linalg.eigvalsh(np.array([[e_hf, k], [k, e_dd]]))
    w, v = np.linalg.eigh(np.array([[e_hf, k], [k, e_dd]]))
    return h, G, enuc, e_hf, ci[0], v[0, 0] ** 2


def fcidump_text(h, G, enuc, tol=1e-12):
    n = h.shape[0]
    lines = ["&FCI", f"NORB={n},", "NELEC=2,", "MS2=0,", "UHF=.FALSE.,",
             "ORBSYM=" + ",".join(["1"] * n) + ",", "ISYM=1,", "&END"]
    fmt = "{: .20E} {:4d} {:4d} {:4d} {:4d}"
    for i in range(n):
        for j in range(i + 1):
            for k in range(n):
                for l in range(k + 1):
                    if i * (i + 1) // 2 + j < k * (k + 1) // 2 + l:
                        continue
                    v = G[i, j, k, l]
                    if abs(v) > tol:
                        lines.append(fmt.format(v, i + 1, j + 1, k + 1, l + 1))
    for i in range(n):
        for j in range(i + 1):
            if abs(h[i, j]) > tol:
                lines.append(fmt.format(h[i, j], i + 1, j + 1, 0, 0))
    lines.append(fmt.format(enuc, 0, 0, 0, 0))
    return "\n".join(lines) + "\n"


def read_fcidump(path):
    vals = {}
    body = open(path).read().split("&END")[1]
    for line in body.strip().splitlines():
        f = line.split()
        vals[tuple(int(x) for x in f[1:5])] = float(f[0])
    return vals


def main(argv):
    if len(argv) == 3 and argv[0] == "--check":
        h, G, enuc, e_hf, e_fci, _ = h2(float(argv[2]))
        mine = read_fcidump_text(fcidump_text(h, G, enuc))
        ref = read_fcidump(argv[1])
        worst = max(abs(abs(mine.get(k, 0.0)) - abs(v)) for k, v in ref.items())
        print(f"max |integral| difference vs {argv[1]}: {worst:.2e} "
              f"(up to orbital sign); RHF {e_hf:.10f}  FCI {e_fci:.10f}")
        return 0 if worst < 1e-6 else 1
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = argv[0]
    print("# R(A)   E_RHF (Ha)       E_FCI (Ha)       |<HF|FCI>|^2")
    for r in argv[1:]:
        h, G, enuc, e_hf, e_fci, w = h2(float(r))
        with open(f"{out}/h2_{r}.FCIDUMP", "w") as f:
            f.write(fcidump_text(h, G, enuc))
        print(f"{r:7s} {e_hf: .10f} {e_fci: .10f} {w:.4f}")
    return 0


def read_fcidump_text(text):
    vals = {}
    for line in text.split("&END")[1].strip().splitlines():
        f = line.split()
        vals[tuple(int(x) for x in f[1:5])] = float(f[0])
    return vals


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
