#!/usr/bin/env python3
"""Checks on q2-opt profiling outputs for the test/Driver/profile-*.test lit
tests. Each subcommand prints facts for FileCheck and exits non-zero (with a
message on stderr) when an invariant is violated.

  sizes REPORT IRDIR    stage IR bytes/lines == wc -c / wc -l of --ir-dir files
  same REPORT1 REPORT2  the same stage IR bytes/lines/ops in both reports
  passfiles REPORT IRDIR  --keep-intermediate=pass files: one per pass of
                        stages 1-4, in order, size == the pass's ir_after
  report REPORT         schema, parameters, stage names
  trace TRACE           Chrome trace: X spans per stage, C counter events
  passes REPORT         per-pass IR metrics (--profile-passes)
  phasec REPORT CALLS NPROBS  Phase C record of every coefficient set
  coeffs MLIR OUT N [DROP]  N coefficient sets from default_coeffs (DROP: one
                        coefficient removed from the last set)
  inject-bad MLIR OUT   add an op that tosa-to-linalg cannot legalize
"""
import json
import os
import re
import sys

# Stage name -> file written by --ir-dir.
STAGE_FILES = {
    "Input": "0_Input.mlir",
    "HLOLowering": "1_HLOLowering.mlir",
    "QuantumLowering": "2_QuantumLowering.mlir",
    "Bufferization": "3_Bufferization.mlir",
    "LLVMDialect": "4_LLVMDialect.mlir",
    "LLVMIR": "5_LLVMIR.ll",
    "ObjectCode": "6_ObjectCode.o",
}


def die(msg):
    sys.stderr.write("profile_check: " + msg + "\n")
    sys.exit(1)


def load(path):
    with open(path) as f:
        return json.load(f)


def sizes(report, irdir):
    stages = {s["name"]: s for s in load(report)["phase_b"]["stages"]}
    for name, fname in STAGE_FILES.items():
        if name not in stages:
            die("stage %s missing from the report" % name)
        ir = stages[name].get("ir")
        if ir is None:
            die("stage %s has no ir metrics" % name)
        with open(os.path.join(irdir, fname), "rb") as f:
            data = f.read()
        # What `wc -c` and `wc -l` print.
        wc_c, wc_l = len(data), data.count(b"\n")
        if ir["bytes"] != wc_c:
            die("%s: report bytes %d != wc -c %d" % (name, ir["bytes"], wc_c))
        if name == "ObjectCode":
            if ir["kind"] != "object":
                die("ObjectCode ir.kind is %r" % ir["kind"])
            if ir["bytes"] != os.path.getsize(os.path.join(irdir, fname)):
                die("ObjectCode bytes != file size")
        elif ir["lines"] != wc_l:
            die("%s: report lines %d != wc -l %d" % (name, ir["lines"], wc_l))
        print("%s bytes=%d lines=%d ok" % (name, wc_c, wc_l))


def same(report1, report2):
    a = {s["name"]: s.get("ir") for s in load(report1)["phase_b"]["stages"]}
    b = {s["name"]: s.get("ir") for s in load(report2)["phase_b"]["stages"]}
    for name in STAGE_FILES:
        for key in ("bytes", "lines", "ops"):
            if a[name].get(key) != b[name].get(key):
                die("%s: %s %s != %s" % (name, key, a[name].get(key),
                                          b[name].get(key)))
        print("%s same" % name)


def passfiles(report, irdir):
    passes = [p for p in load(report)["phase_b"]["passes"]
              if p["argument"] and p["stage"] in list(STAGE_FILES)[1:5]]
    for i, stage in enumerate(list(STAGE_FILES)[1:5], start=1):
        d = os.path.join(irdir, "%d_%s" % (i, stage))
        files = sorted(os.listdir(d))
        mine = [p for p in passes if p["stage"] == stage]
        if len(files) != len(mine):
            die("%s: %d files for %d pass executions" % (stage, len(files),
                                                         len(mine)))
        for k, (f, p) in enumerate(zip(files, mine), start=1):
            m = re.match(r"(\d+)_([A-Za-z0-9-]+?)(_(\w+))?\.mlir$", f)
            if not m or int(m.group(1)) != k or m.group(2) != p["argument"]:
                die("%s: file %s for pass %d %s" % (stage, f, k, p["argument"]))
            if m.group(4) and m.group(4) != p.get("op_symbol"):
                die("%s: file %s names @%s, the pass ran on @%s" % (
                    stage, f, m.group(4), p.get("op_symbol")))
            size = os.path.getsize(os.path.join(d, f))
            if "ir_after" in p and p["ir_after"]["bytes"] != size:
                die("%s: %s is %d bytes, ir_after says %d" % (
                    stage, f, size, p["ir_after"]["bytes"]))
        print("%s files=%d ok" % (stage, len(files)))


def report(path):
    r = load(path)
    print("schema=%s" % r["schema"])
    print("error=%s" % r.get("error"))
    for k in ("molecule", "n_system", "n_est", "n_trotter",
              "n_terms", "ir_scale", "mode"):
        print("%s=%s" % (k, r["parameters"][k]))
    p = r["parameters"]
    # The whole metadata, as in the object's .q2.qpe section.
    print("words=%d default_coeffs=%d" % (len(p["words"]),
                                          len(p["default_coeffs"])))
    if p["ir_scale"] != p["n_est"] * p["n_trotter"] * p["n_terms"]:
        die("ir_scale != n_est * n_trotter * n_terms")
    b = r["phase_b"]
    print("stages=" + ",".join(s["name"] for s in b["stages"]))
    for s in b["stages"]:
        if s["peak_source"] not in ("kernel_hwm", "sampled"):
            die("bad peak_source %r" % s["peak_source"])
        if s["wall_s"] < 0 or s["peak_rss_bytes"] <= 0:
            die("stage %s: bad wall/peak" % s["name"])
    if b["timeline"]["sample_count"] != len(b["timeline"]["samples"]):
        die("timeline sample_count mismatch")
    print("sampler=%s" % b["timeline"]["sampler"])
    # Every compile stage's peak names a pass: the one running, or the
    # stage's pass that finished last.
    for s in b["stages"]:
        if s["name"] in ("Input", "Load", "Execute"):
            continue
        pk = s.get("sampled_peak") or {}
        if not (pk.get("pass") or pk.get("last_pass")):
            die("stage %s: peak names no pass: %r" % (s["name"], pk))
    print("stage peaks name a pass")
    if r["lifetime_peak_rss_bytes"] < max(s["peak_rss_bytes"] for s in b["stages"]):
        die("lifetime peak below a stage peak")


def trace(path):
    t = load(path)
    ev = t["traceEvents"]
    stages = [e["name"] for e in ev if e.get("ph") == "X" and e.get("cat") == "stage"]
    passes = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "pass"]
    counters = [e for e in ev if e.get("ph") == "C"]
    for e in passes + counters:
        if not isinstance(e.get("ts"), (int, float)):
            die("event without numeric ts: %r" % e)
    print("stage spans=" + ",".join(stages))
    print("pass spans>0=%s" % (len(passes) > 0))
    print("counters>0=%s" % (len(counters) > 0))
    print("counter names=" + ",".join(sorted({e["name"] for e in counters})))


def passes(path):
    ps = [p for p in load(path)["phase_b"]["passes"] if not p.get("adaptor")]
    if not ps:
        die("no passes")
    for p in ps:
        ir = p.get("ir_after")
        # An object (after llvm-codegen) has bytes but no ops.
        if ir is None or ir["bytes"] <= 0 or ir["lines"] <= 0 or (
                ir["kind"] != "object" and ir["ops"] <= 0):
            die("pass %s (%d) without IR metrics" % (p["name"], p["index"]))
    print("passes with ir_after=%s" % ("all" if ps else "none"))
    print("last pass stage=%s" % ps[-1]["stage"])


def phasec(path, calls, nprobs):
    c = load(path)["phase_c"]
    if c["calls_per_set"] != int(calls):
        die("calls_per_set %r" % c["calls_per_set"])
    for s in c["sets"]:
        if s["call_s"]["count"] != int(calls):
            die("set %s: %r calls" % (s["label"], s["call_s"]["count"]))
        if abs(s["prob_sum"] - 1) > 1e-9 or abs(sum(s["probabilities"]) - 1) > 1e-9:
            die("set %s: probabilities do not sum to 1" % s["label"])
        if len(s["probabilities"]) != int(nprobs):
            die("set %s: %d probabilities" % (s["label"], len(s["probabilities"])))
        if s["probabilities"][s["argmax"]] != max(s["probabilities"]):
            die("set %s: argmax is not the most likely outcome" % s["label"])
        print("set %s ok" % s["label"])


def coeffs(mlir, out, n, drop=None):
    text = open(mlir).read()
    m = re.search(r"default_coeffs = \[([^\]]*)\]", text)
    if not m:
        die("no default_coeffs in " + mlir)
    c = [float(x) for x in m.group(1).split(",")]
    # Set 0: the defaults; set 1: the Hamiltonian scaled by 1/2 (a different
    # energy), to show the sets are really run separately.
    sets = [{"label": "s%d" % i, "coeffs": [x / (1 + i) for x in c]}
            for i in range(int(n))]
    if drop:
        sets[-1]["coeffs"].pop()
    with open(out, "w") as f:
        json.dump({"sets": sets}, f)


def inject_bad(mlir, out):
    lines = open(mlir).read().split("\n")
    for i, l in enumerate(lines):
        m = re.match(r"\s*(%\w+) = tosa\.mul .*-> (tensor<\d+xf64>)", l)
        if m:
            lines.insert(i + 1, '    %%bad = tosa.custom %s {domain_name = "d", '
                         'operator_name = "o", implementation_attrs = ""} : '
                         "(%s) -> %s" % (m.group(1), m.group(2), m.group(2)))
            open(out, "w").write("\n".join(lines))
            print("injected at line %d" % (i + 2))
            return
    die("no tosa.mul in " + mlir)


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"sizes": sizes, "same": same, "passfiles": passfiles, "report": report, "trace": trace, "passes": passes, "phasec": phasec,
     "coeffs": coeffs, "inject-bad": inject_bad}[cmd](*args)
