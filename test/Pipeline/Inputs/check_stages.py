#!/usr/bin/env python3
"""Runs the six stages one by one on DIR/NAME.mlir for each NAME and checks
the contract of every stage (docs/pipeline.md). Exits non-zero on the first
violation, printing what was wrong."""
import re
import subprocess
import sys

d = sys.argv[1]


def run(args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("FAILED: %s\n%s" % (" ".join(args), r.stderr))
    return r.stdout


def stage(src, dst, pipe):
    run(["q2-opt", src, "--pass-pipeline=builtin.module(%s)" % pipe, "-o", dst])
    return open(dst).read()


def ops(text):
    """Op names of every operation line (generic or custom form)."""
    names = []
    for line in text.splitlines():
        m = re.match(r'\s*(?:%[^=]*=\s*)?"?([a-z_]+\.[a-z_.]+)"?', line)
        if m and not line.lstrip().startswith("module attributes"):
            names.append(m.group(1))
    return names


def fail(msg):
    sys.exit("FAILED: " + msg)


def functions(text):
    """(name, body) of every func.func in a printed module."""
    parts = re.split(r"^  func\.func (?:private )?@([\w.$]+)\(", text, flags=re.M)
    return list(zip(parts[1::2], parts[2::2]))


def has_gate(text, name):
    """A `quantum.custom "name"` op, or a gate table with that kind."""
    return ('quantum.custom "%s"' % name in text or
            re.search(r'gate_table[^\n]*kinds \[[^\]]*"%s"' % name, text))


def has_rotation(text, kind="pauli_rot"):
    """A Pauli rotation: the op (native kind only) or a gate table record
    kind (`pauli_rot` native, `pauli_rot_ladder` decomposed)."""
    return ((kind == "pauli_rot" and "quantum.pauli_rot" in text) or
            re.search(r'gate_table[^\n]*kinds \[[^\]]*"%s"' % kind, text))


for name in sys.argv[2:]:
    p = "%s/%s" % (d, name)
    s0 = open(p + ".mlir").read()
    if "tosa." not in s0:
        fail(name + ": stage 0 has no TOSA, the test input is wrong")
    s1 = stage(p + ".mlir", p + ".s1.mlir", "q2-hlo-lowering")
    if "tosa." in s1:
        fail(name + ": tosa op after HLOLowering")
    if not has_rotation(s1):
        fail(name + ": pauli_rot lost in HLOLowering")
    # The Trotter step's table keeps the angle tensor: no per-term scalars.
    if "gate_table" in s1 and (not re.search(r"params\(%\S+ : tensor<", s1)
                               or "tensor.extract" in s1):
        fail(name + ": HLOLowering scalarized the table's angles")
    s2 = stage(p + ".s1.mlir", p + ".s2.mlir", "q2-quantum-lowering")
    if has_rotation(s2):
        fail(name + ": pauli_rot after QuantumLowering (decompose mode)")
    if (not has_gate(s2, "RZ") and not has_rotation(s2, "pauli_rot_ladder")
            or "scf.for" not in s2):
        fail(name + ": QuantumLowering lost RZ gates or the loops")
    s2n = stage(p + ".s1.mlir", p + ".s2n.mlir",
                "q2-quantum-lowering{keep-native-pauli}")
    if not has_rotation(s2n) or has_rotation(s2n, "pauli_rot_ladder"):
        fail(name + ": keep-native-pauli removed pauli_rot")
    s2u = stage(p + ".s1.mlir", p + ".s2u.mlir", "q2-quantum-lowering{unroll}")
    # The program's loops are gone; the chunks quantum-outline-chunks makes
    # may compute their gate tables' parameters in loops of their own.
    fns = functions(s2u)
    if not any(n == "qpe" for n, _ in fns):
        fail(name + ": no @qpe after QuantumLowering{unroll}")
    if any("scf.for" in body for n, body in fns if ".chunk" not in n):
        fail(name + ": unroll left a loop")
    if not has_gate(s2u, "RZ") and not has_rotation(s2u, "pauli_rot_ladder"):
        fail(name + ": unroll lost the gates")
    for tag, s2x in (("", s2), ("n", s2n), ("u", s2u)):
        s3 = stage(p + ".s2%s.mlir" % tag, p + ".s3%s.mlir" % tag,
                   "q2-bufferization")
        if "tensor<" in s3:
            fail(name + tag + ": tensor type after Bufferization")
        if "in(" not in s3:
            fail(name + tag + ": probs not in out-buffer form")
        s4 = stage(p + ".s3%s.mlir" % tag, p + ".s4%s.mlir" % tag,
                   "q2-llvm-dialect")
        bad = sorted({o for o in ops(s4) if not o.startswith("llvm.")})
        # func.return prints without its dialect prefix.
        if re.search(r"^\s*return\b", s4, re.M):
            bad.append("func.return")
        if bad:
            fail(name + tag + ": non-LLVM ops after LLVMDialect: %s" % bad)
        if "llvm.call @q2_rt_probs" not in s4:
            fail(name + tag + ": no q2_rt_probs call after LLVMDialect")
        ll = p + tag + ".ll"
        obj = p + tag + ".o"
        stage(p + ".s4%s.mlir" % tag, p + ".s5%s.mlir" % tag,
              "q2-llvm-ir{output=%s}" % ll)
        run(["opt", "-passes=verify", "-disable-output", ll])
        if "define void @qpe(" not in open(ll).read():
            fail(name + tag + ": no @qpe definition in the .ll")
        stage(p + ".s4%s.mlir" % tag, p + ".s6%s.mlir" % tag,
              "q2-object-code{output=%s}" % obj)
        hdr = run(["llvm-readelf", "-h", obj])
        if not re.search(r"Type:\s+REL ", hdr):
            fail(name + tag + ": object is not an ELF relocatable:\n" + hdr)
        syms = {}
        for line in run(["llvm-nm", obj]).splitlines():
            f = line.split()
            syms[f[-1]] = f[-2]
        for s in ("qpe", "_mlir_ciface_qpe"):
            if syms.get(s) != "T":
                fail(name + tag + ": %s not defined (T) in the object" % s)
        need = ["q2_rt_alloc", "q2_rt_qubit", "q2_rt_probs", "q2_rt_dealloc"]
        need.append("q2_rt_pauli_rot" if tag == "n" else "q2_rt_gate")
        for s in need:
            if syms.get(s) != "U":
                fail(name + tag + ": %s not undefined (U) in the object" % s)
        if tag != "n" and "q2_rt_pauli_rot" in syms:
            fail(name + tag + ": q2_rt_pauli_rot referenced in decompose mode")
print("OK")
