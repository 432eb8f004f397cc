#!/usr/bin/env python3
"""Numerical check of quantum-decompose-pauli-rot + quantum-lower-ctrl-adj.

For each case, writes a function applying one (controlled, adjoint)
pauli_rot, runs q2-opt on it, simulates the resulting gate list with dense
complex matrices (pure Python, no numpy) and compares the unitary with the
independent closed form exp(-i t/2 P) = cos(t/2) I - i sin(t/2) P (applied
only when all controls are |1>). Exact equality up to 1e-12: no global phase
is allowed, since controls make it observable."""
import cmath
import math
import re
import subprocess
import sys

THETA = 0.7318
PIPE = sys.argv[1]

I2 = [[1, 0], [0, 1]]
PAULI = {"I": I2, "X": [[0, 1], [1, 0]], "Y": [[0, -1j], [1j, 0]],
         "Z": [[1, 0], [0, -1]]}


def gate(name, p):
    c, s = math.cos(p / 2), math.sin(p / 2)
    return {"H": [[1 / math.sqrt(2), 1 / math.sqrt(2)],
                  [1 / math.sqrt(2), -1 / math.sqrt(2)]],
            "X": PAULI["X"], "Y": PAULI["Y"], "Z": PAULI["Z"],
            "S": [[1, 0], [0, 1j]], "T": [[1, 0], [0, cmath.exp(1j * math.pi / 4)]],
            "RX": [[c, -1j * s], [-1j * s, c]], "RY": [[c, -s], [s, c]],
            "RZ": [[cmath.exp(-1j * p / 2), 0], [0, cmath.exp(1j * p / 2)]],
            "PhaseShift": [[1, 0], [0, cmath.exp(1j * p)]]}[name]


def embed(n, u, target, ctrls):
    """Dense 2^n matrix of u on `target`, controlled on `ctrls` (qubit 0 is
    the most significant bit)."""
    d = 1 << n
    m = [[0j] * d for _ in range(d)]
    bit = lambda x, q: (x >> (n - 1 - q)) & 1
    for col in range(d):
        if not all(bit(col, c) for c in ctrls):
            m[col][col] = 1
            continue
        b = bit(col, target)
        for nb in (0, 1):
            row = col ^ ((b ^ nb) << (n - 1 - target))
            m[row][col] += u[nb][b]
    return m


def mul(a, b):
    n = len(a)
    return [[sum(a[i][k] * b[k][j] for k in range(n)) for j in range(n)]
            for i in range(n)]


def expected(word, nctrl, adj):
    n = len(word) + nctrl
    t = -THETA if adj else THETA
    # Tensor product of the word's letters on qubits 0..len-1.
    p = [[1]]
    for l in word:
        p = [[x * y for x in row_a for y in PAULI[l][r]]
             for row_a in p for r in range(2)]
        p = [[p[i][j] for j in range(len(p[i]))] for i in range(len(p))]
    d = 1 << n
    dim_w = 1 << len(word)
    u = [[(1 if i == j else 0) * complex(1) for j in range(d)] for i in range(d)]
    # Controls are qubits len(word).. : all-ones = the last dim_w-block rows
    # whose control bits are 1. Index = word_bits << nctrl | ctrl_bits.
    allc = (1 << nctrl) - 1
    for i in range(dim_w):
        for j in range(dim_w):
            v = math.cos(t / 2) * (i == j) - 1j * math.sin(t / 2) * p[i][j]
            u[(i << nctrl) | allc][(j << nctrl) | allc] = v
    return u


def simulate(text, n):
    vals = {}
    wires = {}
    for k in range(n):
        wires["%%arg%d" % k] = k
    vals["%%arg%d" % n] = THETA
    u = [[complex(i == j) for j in range(1 << n)] for i in range(1 << n)]
    for line in text.splitlines():
        line = line.strip()
        m = re.match(r"(%\S+) = arith\.constant (\S+) : f64", line)
        if m:
            vals[m.group(1)] = float(m.group(2))
            continue
        m = re.match(r"(%\S+) = arith\.negf (%\S+) : f64", line)
        if m:
            vals[m.group(1)] = -vals[m.group(2)]
            continue
        m = re.match(r"(%\S+) = arith\.mulf (%\S+), (%\S+) : f64", line)
        if m:
            vals[m.group(1)] = vals[m.group(2)] * vals[m.group(3)]
            continue
        m = re.match(r'(.*) = quantum\.custom "(\w+)"\((%\S+)?\) (%[^ ,]+)'
                     r'(?: ctrls\(([^)]*)\))?( adj)? :', line)
        if m:
            res = [r.strip() for r in m.group(1).split(",")]
            name, param = m.group(2), vals[m.group(3)] if m.group(3) else 0.0
            tgt = m.group(4)
            ctl = [c.strip() for c in m.group(5).split(",")] if m.group(5) else []
            if m.group(6):
                sys.exit("adjoint left after lowering: " + line)
            g = embed(n, gate(name, param), wires[tgt], [wires[c] for c in ctl])
            u = mul(g, u)
            for r, src in zip(res, [tgt] + ctl):
                wires[r] = wires[src]
            continue
        if re.search(r"(^|= )quantum\.", line):
            sys.exit("unexpected op: " + line)
    return u


cases = [("Z", 0, False), ("X", 0, False), ("Y", 0, True), ("XY", 0, False),
         ("ZIX", 1, False), ("XXYY", 1, False), ("YXXY", 1, True),
         ("IYZ", 2, False), ("I", 1, False), ("II", 0, False)]
for word, nctrl, adj in (cases if len(sys.argv) < 3 else []):
    nt = len(word)
    n = nt + nctrl
    args = ", ".join("%%q%d: !quantum.bit" % k for k in range(n))
    tys = ", ".join(["!quantum.bit"] * nt)
    ctys = ", ".join(["!quantum.bit"] * nctrl)
    tq = ", ".join("%%q%d" % k for k in range(nt))
    cq = ", ".join("%%q%d" % k for k in range(nt, n))
    res = "%%r:%d" % nt if nt > 1 else "%r"
    resl = ["%%r#%d" % k for k in range(nt)] if nt > 1 else ["%r"]
    if nctrl:
        cres = ", " + ("%%c:%d" % nctrl if nctrl > 1 else "%c")
        resl += ["%%c#%d" % k for k in range(nctrl)] if nctrl > 1 else ["%c"]
        ctl = " ctrls(%s)" % cq
        ty = "%s ctrls %s" % (tys, ctys)
    else:
        cres, ctl, ty = "", "", tys
    src = ("func.func @f(%s, %%t: f64) -> (%s) {\n"
           "  %s%s = quantum.pauli_rot \"%s\"(%%t) %s%s%s : %s\n"
           "  return %s : %s\n}\n") % (
        args, ", ".join(["!quantum.bit"] * n), res, cres, word, tq, ctl,
        " adj" if adj else "", ty, ", ".join(resl),
        ", ".join(["!quantum.bit"] * n))
    r = subprocess.run(["q2-opt", "-", "--pass-pipeline=" + PIPE],
                       input=src, capture_output=True, text=True)
    if r.returncode:
        sys.exit("q2-opt failed on:\n%s\n%s" % (src, r.stderr))
    got = simulate(r.stdout, n)
    want = expected(word, nctrl, adj)
    if nctrl == 0 and set(word) == {"I"}:
        # Documented: an uncontrolled identity word is a global phase, dropped.
        want = [[complex(i == j) for j in range(1 << n)] for i in range(1 << n)]
    err = max(abs(got[i][j] - want[i][j]) for i in range(1 << n)
              for j in range(1 << n))
    if err > 1e-12:
        sys.exit("%s ctrls=%d adj=%s: max error %g\n%s" % (word, nctrl, adj,
                                                         err, r.stdout))
    print("ok %s ctrls=%d adj=%d" % (word, nctrl, adj))


def dagger(m):
    return [[m[j][i].conjugate() for j in range(len(m))] for i in range(len(m))]


# Named gates through quantum-lower-ctrl-adj alone: expected = the dense gate
# (daggered when adj), built here from the textbook matrices; CNOT/CZ take
# their first operand as control.
if len(sys.argv) > 2 and sys.argv[2] == "gates":
    gcases = [("H", False, 0, 0), ("S", True, 0, 0), ("T", True, 0, 0),
              ("S", True, 0, 1), ("T", True, 0, 2), ("RX", True, 1, 0),
              ("RY", True, 1, 1), ("RZ", True, 1, 0),
              ("PhaseShift", True, 1, 1), ("X", True, 0, 1),
              ("CNOT", False, 0, 0), ("CZ", True, 0, 1)]
    for name, adj, npar, nctrl in gcases:
        nt = 2 if name in ("CNOT", "CZ") else 1
        n = nt + nctrl
        args = ", ".join("%%q%d: !quantum.bit" % k for k in range(n))
        tq = ", ".join("%%q%d" % k for k in range(nt))
        cq = ", ".join("%%q%d" % k for k in range(nt, n))
        res = ", ".join("%%o%d" % k for k in range(n))
        ctl = " ctrls(%s)" % cq if nctrl else ""
        ty = ", ".join(["!quantum.bit"] * nt)
        if nctrl:
            ty += " ctrls " + ", ".join(["!quantum.bit"] * nctrl)
        par = "%t" if npar else ""
        src = ("func.func @f(%s, %%t: f64) -> (%s) {\n"
               "  %s = quantum.custom \"%s\"(%s) %s%s%s : %s\n"
               "  return %s : %s\n}\n") % (
            args, ", ".join(["!quantum.bit"] * n), res, name, par, tq, ctl,
            " adj" if adj else "", ty, res, ", ".join(["!quantum.bit"] * n))
        r = subprocess.run(["q2-opt", "-", "--pass-pipeline=" + PIPE],
                           input=src, capture_output=True, text=True)
        if r.returncode:
            sys.exit("q2-opt failed on:\n%s\n%s" % (src, r.stderr))
        if "adj" in r.stdout or "CNOT" in r.stdout or "CZ" in r.stdout:
            sys.exit("not lowered:\n" + r.stdout)
        # The lowered text has %arg names for the function arguments.
        got = simulate(r.stdout, n)
        if nt == 2:
            base = {"CNOT": "X", "CZ": "Z"}[name]
            want = embed(n, gate(base, 0.0), 1, [0] + list(range(2, n)))
        else:
            want = embed(n, gate(name, THETA if npar else 0.0), 0,
                         list(range(1, n)))
        if adj:
            want = dagger(want)
        err = max(abs(got[i][j] - want[i][j]) for i in range(1 << n)
                  for j in range(1 << n))
        if err > 1e-12:
            sys.exit("%s adj=%s ctrls=%d: max error %g\n%s" % (
                name, adj, nctrl, err, r.stdout))
        print("ok gate %s adj=%d ctrls=%d" % (name, adj, nctrl))
