#!/usr/bin/env python3
"""The executed circuit of every bundled example, as probabilities.

  circuit_probs.py generate BIN_DIR OUT.json   (run once, with the compiler
                                                 BEFORE a change; stores them)
  circuit_probs.py check REF.json WORK_DIR [--tol 1e-12] [--only S1,S2..]
                   [--q2-opt FLAG]...           (tools from PATH; compares
                                                 the cases whose name has one
                                                 of S1, S2..; FLAG is added
                                                 to q2-opt)

Each case generates a program with q2-qpe, compiles and runs it once with
`q2-opt --qpe-pipeline --run 1 --report` (default coefficients) and reads
phase_c.sets[0].probabilities. `check` prints one line per case and exits
non-zero if any probability differs by more than --tol (or a case fails).
"""
import json
import os
import subprocess
import sys

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                        "..", "examples", "hamiltonians")

SMALL = ["h2_0.7414", "lih_1.595_2e3o", "h3o+_4e4o"]   # 4-8 system qubits
LARGE = ["lih_4e6o", "h6_chain_6e6o"]                    # 12 system qubits


def cases():
    """(name, q2-qpe args, q2-opt flags) for every bundled molecule, fixed and
    dynamic, native and decomposed; fixed uses Trotter order 1, dynamic 2."""
    out = []
    for mol in SMALL + LARGE:
        n_est, n_trot = ("6", "2") if mol in SMALL else ("4", "1")
        for mode, order in (("fixed", "1"), ("dynamic", "2")):
            for native in (False, True):
                name = f"{mol}-{mode}-{'native' if native else 'decomposed'}"
                qpe = [mol + ".FCIDUMP", "--mode", mode, "--order", order,
                       "--n-est", n_est, "--n-trotter", n_trot, "--power", "time"]
                out.append((name, qpe, ["--keep-native-pauli"] if native else []))
    # The unrolled program and U^(2^k) by repetition.
    for native in (False, True):
        tag = "native" if native else "decomposed"
        flags = ["--keep-native-pauli"] if native else []
        out.append((f"h2_0.7414-unrolled-{tag}",
                    ["h2_0.7414.FCIDUMP", "--mode", "fixed", "--n-est", "4",
                     "--n-trotter", "2", "--unroll", "--power", "repeat"], flags))
        out.append((f"lih_1.595_2e3o-repeat-{tag}",
                    ["lih_1.595_2e3o.FCIDUMP", "--mode", "dynamic", "--n-est", "4",
                     "--n-trotter", "1", "--power", "repeat"], flags))
    return out


def probabilities(q2qpe, q2opt, work, name, qpe, flags, extra=()):
    prog = os.path.join(work, name + ".mlir")
    report = os.path.join(work, name + ".json")
    args = [os.path.join(EXAMPLES, qpe[0])] + qpe[1:]
    subprocess.run([q2qpe, *args, "-o", prog], check=True)
    subprocess.run([q2opt, "--qpe-pipeline", prog, "--run", "1", "--report",
                    report, "-o", os.path.join(work, name + ".o"), *flags,
                    *extra],
                   check=True, stdout=subprocess.DEVNULL)
    with open(report) as f:
        r = json.load(f)
    return r["phase_c"]["sets"][0]["probabilities"]


def dump(ref):
    """One line per case (repr of a float round-trips in Python 3)."""
    lines = [json.dumps(c) for c in ref["cases"]]
    return ('{"how": %s,\n "cases": [\n  %s\n]}\n'
            % (json.dumps(ref["how"]), ",\n  ".join(lines)))


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "generate":
        bin_dir, out = sys.argv[2], sys.argv[3]
        work = out + ".work"
        os.makedirs(work, exist_ok=True)
        ref = {"how": "test/Pipeline/Inputs/circuit_probs.py generate, with "
                      "the compiler before the outlining change",
               "cases": []}
        for name, qpe, flags in cases():
            p = probabilities(os.path.join(bin_dir, "q2-qpe"),
                              os.path.join(bin_dir, "q2-opt"), work, name, qpe,
                              flags)
            ref["cases"].append({"name": name, "q2-qpe": qpe, "q2-opt": flags,
                                 "probabilities": p})
            print(name, len(p), flush=True)
        with open(out, "w") as f:
            f.write(dump(ref))
        return 0
    if len(sys.argv) >= 4 and sys.argv[1] == "check":
        ref_path, work = sys.argv[2], sys.argv[3]
        tol, only, extra = 1e-12, None, []
        rest = sys.argv[4:]
        while rest:
            if rest[0] == "--tol":
                tol, rest = float(rest[1]), rest[2:]
            elif rest[0] == "--only":
                only, rest = rest[1], rest[2:]
            elif rest[0] == "--q2-opt":
                extra.append(rest[1])
                rest = rest[2:]
            else:
                sys.exit(f"unknown argument {rest[0]}")
        os.makedirs(work, exist_ok=True)
        with open(ref_path) as f:
            ref = json.load(f)
        bad = 0
        for c in ref["cases"]:
            if only and not any(o in c["name"] for o in only.split(",")):
                continue
            p = probabilities("q2-qpe", "q2-opt", work, c["name"], c["q2-qpe"],
                              c["q2-opt"], extra)
            want = c["probabilities"]
            if len(p) != len(want):
                print(f"{c['name']}: {len(p)} probabilities, expected {len(want)}")
                bad += 1
                continue
            diff = max(abs(a - b) for a, b in zip(p, want))
            ok = diff <= tol
            bad += not ok
            print(f"{c['name']}: max |diff| {diff:.1e} {'ok' if ok else 'MISMATCH'}")
        return 1 if bad else 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
