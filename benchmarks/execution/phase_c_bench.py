#!/usr/bin/env python3
"""Phase C benchmark: time per call of compiled QPE programs, with powered
blocks (quantum.power, the default) next to gate-by-gate execution
(--power-blocks=false) measured in the same run; fusion on and off; the
RSS of 1000 calls in one process.

  python3 benchmarks/execution/phase_c_bench.py [--build build] [--runs 5]
                                                [--full] [--skip-lih]
                                                [--sections targets,fusion,fold,loop,scaling]
                                                [--molecules h2_0.7414,...]

Targets (issue "Phase C at chemistry scale"; medians of --runs calls):
  H2   (4+8 qubits, 15 terms), n_est 8, n_trotter 10, order 2, repeat: <= 2 ms
  H3O+ (8+8 qubits, 185 terms), same:                                  <= 1 s
  LiH 4e6o (12+8 qubits, 631 terms), n_est 8, n_trotter 10, power=time: <= 60 s
for both pipeline modes (native and decomposed Pauli rotations), and the
per-call path allocates nothing that grows (1000 calls of H2: RSS after call
10 and after call 1000 within 1 MB).

Section "fold": decomposed programs with the runtime's Pauli-frame folding
(on by default) against Q2_RT_CLIFFORD_FOLD=0, same run, fastest call of each.

Section "scaling" (not in the default set: minutes): every bundled molecule
and, built with psi4 when it is installed (skipped with a message
otherwise), water in full STO-3G (14 system qubits) and N2 10e8o with 2
frozen core orbitals (16), all with the q2-qpe defaults (resolution 3 mHa,
auto Trotter steps, power = repeat), dynamic, one call each in its own
process: time per call and the process's peak RSS on the default paths
(subspace paths for registers of 18+ qubits) and, up to 12 system qubits,
on the state vector (Q2_RT_SUBSPACE=0) next to it. Targets (issue 37): 12
system qubits no slower than the state vector; water <= 60 s and <= 4 GB;
N2 <= 5 min, <= 8 GB and within one resolution of the exact energy; the
subspace paths' probabilities sum to 1 within 1e-10. --scaling-json FILE
writes the rows for plot_phase_c_paths.py.

The scaling section ends at the limit: random Hamiltonians
(q2-random-fcidump NORB 4 7, no orbital symmetry) with the defaults, dynamic,
NORB 7 (14 + 15 qubits: accepted, the eigenphase path on 4096 states) and
NORB 9 (18 + 16: refused before anything is allocated, the message naming
the live subspace). The NORB 7 call is stopped after --limit-budget seconds
(SIGINT); its progress lines say how far it got, and the peak RSS is the
child's.

Gate by gate, H3O+ decomposed takes ~8 minutes per call on this machine: it is
measured at n_est 5 and scaled by the number of Trotter steps (2^8-1)/(2^5-1)
and by the state size 2^3 unless --full is given (measured in full: 501 s,
scaled: 576 s); LiH gate by gate likewise at n_est 4 (by 8/4 wires and 2^4).
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "common"))
from benchlib import ROOT, fcidump, qpe_info, qpe_program, require, \
    run_checked  # noqa: E402

# Molecules beyond the bundled ones, built with psi4 (q2-qpe --molecule) at
# bench time: name, XYZ lines (Angstrom), --active NE,NO.
PSI4_MOLECULES = [
    ("water", ["O 0 0 0.1173", "H 0 0.7572 -0.4692", "H 0 -0.7572 -0.4692"],
     "10,7"),   # full STO-3G: 14 system qubits
    ("n2", ["N 0 0 0", "N 0 0 1.0977"], "10,8"),  # 2 frozen core: 16 qubits
]
# The state vector of water with the defaults (14 + 16 qubits) needs 17.4 GB:
# not run on the shared machine; issue 37 measured it (one call).
WATER_STATE_VECTOR = {"seconds": 221.0, "peak_bytes": 17.4e9}


def have_psi4():
    return shutil.which("psi4") is not None


def psi4_fcidump(qpe, tmp, name, atoms, active):
    """FCIDUMP of a PSI4_MOLECULES entry (RHF/STO-3G, frozen core), or None
    with a message when psi4 is not installed."""
    if not have_psi4():
        print("  %-15s skipped: psi4 is not installed (apt-get install psi4)"
              % name)
        return None
    xyz = os.path.join(tmp, name + ".xyz")
    with open(xyz, "w") as f:
        f.write("%d\n%s\n%s\n" % (len(atoms), name, "\n".join(atoms)))
    out = os.path.join(tmp, name + ".FCIDUMP")
    run_checked([qpe, "--molecule", xyz, "--basis", "sto-3g", "--charge", "0",
                 "--active", active, "--info", "--fcidump-out", out])
    return out


def run_object(opt, obj, env, report):
    """One call of a compiled object in its own process: the report and the
    child's peak RSS (wait4) and wall time."""
    e = dict(os.environ)
    e.update(env or {})
    t0 = time.monotonic()
    errf = os.path.join(os.path.dirname(report), "stderr.txt")
    with open(errf, "w") as err:
        child = subprocess.Popen([opt, obj, "--run", "1", "--quiet",
                                  "--report", report], env=e,
                                 stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        with open(errf) as f:
            sys.exit("phase_c_bench: %s failed:\n%s" % (obj, f.read()))
    with open(report) as f:
        return json.load(f), usage.ru_maxrss * 1024, time.monotonic() - t0


def scaling(args, qpe, opt, tmp, only, results):
    """Every bundled molecule and the psi4 ones with the q2-qpe defaults,
    one call each on the subspace paths (the default) and, up to 12 system
    qubits, on the state vector (Q2_RT_SUBSPACE=0) next to it."""
    print("\nScaling with the defaults, both paths (one call each, dynamic "
          "mode; peak = the\nPhase C process's peak RSS; state = 16 * "
          "2^(n_sys + n_est) bytes):")
    inputs = [(h, fcidump(h)) for h in ("h2_0.7414", "lih_1.595_2e3o",
                                        "h3o+_4e4o", "lih_4e6o",
                                        "h6_chain_6e6o")]
    for name, atoms, active in PSI4_MOLECULES:
        if only and name not in only:
            continue
        fc = psi4_fcidump(qpe, tmp, name, atoms, active)
        if fc:
            inputs.append((name, fc))
    for ham, fc in inputs:
        if only and ham not in only:
            continue
        if args.skip_lih and ham in ("lih_4e6o", "h6_chain_6e6o"):
            continue
        prog = os.path.join(tmp, "%s_defaults.mlir" % ham)
        obj = os.path.join(tmp, "%s_defaults.o" % ham)
        run_checked([qpe, fc, "--mode", "dynamic", "-o", prog])
        run_checked([opt, prog, "-o", obj])
        rows = {}
        for path, env in (("subspace", None),
                          ("state vector", {"Q2_RT_SUBSPACE": "0"})):
            report = os.path.join(tmp, "s.json")
            # The state vector beyond 12 system qubits needs >= 17 GB.
            with open(prog) as f:
                n_sys = int(re.search(r"n_system = (\d+)", f.read()).group(1))
            if path == "state vector" and n_sys > 12:
                continue
            r, peak, wall = run_object(opt, obj, env, report)
            par = r["parameters"]
            st = r["phase_c"]["sets"][0]
            n_est = par["n_est"]
            ex = st.get("execution") or {}
            row = {"molecule": ham, "path": path, "n_system": n_sys,
                   "n_est": n_est, "call_s": st["call_s"]["median"],
                   "peak_bytes": peak, "prob_sum": st["prob_sum"],
                   "argmax": st["argmax"],
                   "error_resolutions": st.get("error_resolutions"),
                   "runtime_path": ex.get("path", "state_vector"),
                   "subspace_dim": ex.get("subspace_dim"),
                   "eigen_s": ex.get("eigen_seconds")}
            rows[path] = row
            results.append(row)
            state = 16.0 * 2 ** (n_sys + n_est)
            err = row["error_resolutions"]
            line = ("  %-15s %2d+%2d qubits  %-12s %-13s call %10s  peak "
                    "%8.1f MB (state %9.1f MB)  prob_sum-1 %+.1e  %s" % (
                        ham, n_sys, n_est, path, row["runtime_path"],
                        fmt_s(row["call_s"]), peak / 1e6, state / 1e6,
                        row["prob_sum"] - 1,
                        "error %+.2f res" % err if err is not None else ""))
            if row["subspace_dim"] and path == "subspace":
                line += "  D=%d" % row["subspace_dim"]
            # Issue 37: the subspace paths' probabilities sum to 1 within
            # 1e-10 (the state vector's repeated squaring drifts further:
            # H3O+ 1.8e-10, water 1.4e-7 in the issue).
            ok = path != "subspace" or abs(row["prob_sum"] - 1) <= 1e-10
            if path == "subspace" and n_sys == 14:
                ok &= row["call_s"] <= 60 and peak <= 4e9
                line += "  (target <= 60 s, <= 4 GB)"
            if path == "subspace" and n_sys == 16:
                ok &= row["call_s"] <= 300 and peak <= 8e9 and \
                    err is not None and abs(err) <= 1
                line += "  (target <= 5 min, <= 8 GB, |error| <= 1 res)"
            row["ok"] = ok
            print(line + ("  PASS" if ok else "  FAIL"))
            sys.stdout.flush()
        if "state vector" in rows and "subspace" in rows and \
                rows["state vector"]["n_system"] >= 12:
            sv, sub = rows["state vector"], rows["subspace"]
            ok = sub["call_s"] <= sv["call_s"]
            sub["ok"] = sub["ok"] and ok
            print("  %-15s subspace / state vector: time %.3f, peak %.3f  "
                  "(target: no slower) %s" % (
                      ham, sub["call_s"] / sv["call_s"],
                      sub["peak_bytes"] / sv["peak_bytes"],
                      "PASS" if ok else "FAIL"))
        if ham == "water":
            print("  %-15s state vector not run (17.4 GB); issue 37: %.0f s, "
                  "%.1f GB per call" % (ham, WATER_STATE_VECTOR["seconds"],
                                        WATER_STATE_VECTOR["peak_bytes"] / 1e9))
            results.append({"molecule": ham, "path": "state vector",
                            "n_system": 14, "n_est": 16,
                            "call_s": WATER_STATE_VECTOR["seconds"],
                            "peak_bytes": WATER_STATE_VECTOR["peak_bytes"],
                            "source": "issue 37 (not rerun)"})


def fmt_s(sec):
    return "%.3f ms" % (sec * 1e3) if sec < 1 else "%.2f s" % sec



def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--full", action="store_true",
                    help="measure every gate-by-gate reference in full")
    ap.add_argument("--skip-lih", action="store_true",
                    help="leave out the 12-qubit LiH case (minutes)")
    ap.add_argument("--sections", default="targets,fusion,fold,loop",
                    help="comma-separated subset of "
                         "targets,fusion,fold,loop,scaling")
    ap.add_argument("--limit-budget", type=float, default=120,
                    help="seconds the scaling section gives the largest "
                         "register the runtime accepts (default 120)")
    ap.add_argument("--scaling-json", default="",
                    help="also write the scaling section's rows here (for "
                         "benchmarks/execution/plot_phase_c_paths.py)")
    ap.add_argument("--molecules", default="",
                    help="comma-separated FCIDUMP names (fusion and fold "
                         "sections; default: every bundled example)")
    args = ap.parse_args()
    sections = set(args.sections.split(","))
    only = set(m for m in args.molecules.split(",") if m)
    bin_dir = os.path.join(args.build, "bin")
    qpe, opt = os.path.join(bin_dir, "q2-qpe"), os.path.join(bin_dir, "q2-opt")
    loop = os.path.join(bin_dir, "bench-call-loop")
    require(qpe, opt, loop)
    tmp = tempfile.mkdtemp(prefix="q2-phasec-")
    ok_all = True
    results = []

    def program(ham, n_est, n_trot, power):
        out = os.path.join(tmp, "%s_%d_%d_%s.mlir" % (ham, n_est, n_trot, power))
        if not os.path.exists(out):
            qpe_program(qpe, fcidump(ham), out, n_est, n_trot, power)
        return out

    def per_call(prog, flags, runs, env=None):
        """Median seconds per call and the block summary of the last call."""
        report = os.path.join(tmp, "r.json")
        run_checked([opt, prog, "--run", str(runs), "--report", report,
                     "-o", os.path.join(tmp, "x.o")] + flags, env)
        with open(report) as f:
            r = json.load(f)
        s = r["phase_c"]["sets"][0]
        methods = {}
        for b in s["blocks"]:
            methods[b["method"]] = methods.get(b["method"], 0) + b["occurrences"]
        return (s["call_s"]["median"], methods, r["phase_c"]["threads"],
                s["call_s"]["min"])

    def fmt(sec):
        return "%.3f ms" % (sec * 1e3) if sec < 1 else "%.2f s" % sec

    try:
        print("Phase C: median of %d calls per case; gate by gate = "
              "--power-blocks=false, same run\n" % args.runs)
        cases = [("H2", "h2_0.7414", "repeat", 2e-3, 8, None),
                 ("H3O+", "h3o+_4e4o", "repeat", 1.0, 5,
                  (2 ** 8 - 1) / (2 ** 5 - 1) * 2 ** 3)]
        if not args.skip_lih:
            cases.append(("LiH 4e6o", "lih_4e6o", "time", 60.0, 4, 8 / 4 * 2 ** 4))
        for label, ham, power, target, ref_nest, scale in (
                cases if "targets" in sections else []):
            prog = program(ham, 8, 10, power)
            for mode, flags in (("native", ["--keep-native-pauli"]),
                                ("decomposed", [])):
                t, methods, threads, _ = per_call(prog, flags, args.runs)
                # The gate-by-gate reference.
                if args.full or scale is None:
                    ref = per_call(prog, flags + ["--power-blocks=false"], 1)[0]
                    ref_note = ""
                else:
                    small = program(ham, ref_nest, 10, power)
                    ref = per_call(small, flags + ["--power-blocks=false"], 1)[0]
                    ref *= scale
                    ref_note = " (n_est %d x%.2f)" % (ref_nest, scale)
                ok = t <= target
                ok_all &= ok
                print("%-9s %-10s powered %10s  gate by gate %10s%s  ratio %7.1fx  "
                      "blocks %s, %d thread(s)  (target <= %s) %s"
                      % (label, mode, fmt(t), fmt(ref), ref_note, ref / t,
                         ",".join("%s x%d" % kv for kv in sorted(methods.items())),
                         threads, fmt(target), "PASS" if ok else "FAIL"))

        if "fusion" in sections:
            print("\nFusion on the JIT path (Q2_RT_FUSION=0 disables it): fused must "
                  "not be slower than unfused\n(every bundled example, n_est 6, "
                  "n_trotter 2, repeat; per run the fastest of %d calls, 5 "
                  "interleaved rounds, median over rounds; n_est 3 for the "
                  "12-qubit molecules)" % max(args.runs, 10))
        for ham in ("h2_0.7414", "lih_1.595_2e3o", "h3o+_4e4o", "lih_4e6o",
                    "h6_chain_6e6o"):
            if "fusion" not in sections:
                break
            if args.skip_lih and ham in ("lih_4e6o", "h6_chain_6e6o"):
                continue
            if only and ham not in only:
                continue
            # 12 system qubits: n_est 3 keeps 100 calls per mode in minutes
            # (fusion acts on the gates between the blocks, the same there).
            n_est = 3 if ham in ("lih_4e6o", "h6_chain_6e6o") else 6
            prog = program(ham, n_est, 2, "repeat")
            for mode, flags in (("native", ["--keep-native-pauli"]),
                                ("decomposed", [])):
                # Interleaved rounds: the machine's load drifts between two
                # separate measurements. The fastest call of a run is the
                # cost of the work itself; medians of calls on a loaded
                # machine measure the other processes (2 threads per call).
                fs, ps = [], []
                for _ in range(5):
                    fs.append(per_call(prog, flags, max(args.runs, 10))[3])
                    ps.append(per_call(prog, flags, max(args.runs, 10),
                                       {"Q2_RT_FUSION": "0"})[3])
                fused, plain = sorted(fs)[2], sorted(ps)[2]
                # 5 % and 0.05 ms of slack for timing noise.
                ok = fused <= plain * 1.05 + 5e-5
                ok_all &= ok
                print("  %-15s n_est %d %-10s fused %10s  unfused %10s  ratio %.2f  %s"
                      % (ham, n_est, mode, fmt(fused), fmt(plain), fused / plain,
                         "PASS" if ok else "FAIL"))

        if "fold" in sections:
            print("\nPauli-frame folding of decomposed blocks "
                  "(Q2_RT_CLIFFORD_FOLD=0 disables it): fastest of %d calls"
                  % args.runs)
        for ham, n_est, n_trot, power in (
                ("h2_0.7414", 8, 10, "repeat"), ("h3o+_4e4o", 8, 10, "repeat"),
                ("lih_4e6o", 4, 10, "time"), ("h6_chain_6e6o", 4, 10, "time")):
            if "fold" not in sections:
                break
            if (only and ham not in only) or (
                    args.skip_lih and ham in ("lih_4e6o", "h6_chain_6e6o")):
                continue
            prog = program(ham, n_est, n_trot, power)
            on = per_call(prog, [], args.runs)
            off = per_call(prog, [], args.runs, {"Q2_RT_CLIFFORD_FOLD": "0"})
            ok = on[3] <= off[3] * 1.05 + 5e-5
            ok_all &= ok
            print("  %-15s n_est %d %-6s folded %10s  not folded %10s  "
                  "speed-up %5.1fx  %s" % (ham, n_est, power, fmt(on[3]),
                                            fmt(off[3]), off[3] / on[3],
                                            "PASS" if ok else "FAIL"))

        if "scaling" in sections:
            scaling(args, qpe, opt, tmp, only, results)
            ok_all &= all(r.get("ok", True) for r in results)
            if args.scaling_json:
                with open(args.scaling_json + ".tmp", "w") as f:
                    json.dump(results, f, indent=1)
                os.replace(args.scaling_json + ".tmp", args.scaling_json)
                print("  (written to %s)" % args.scaling_json)

        if "scaling" in sections:
            rnd = os.path.join(bin_dir, "q2-random-fcidump")
            print("\nThe largest register the runtime accepts (random "
                  "FCIDUMP, 4 electrons, defaults, dynamic; budget %.0f s):"
                  % args.limit_budget)
            # NORB 8 (16 + 16) is accepted now: its live-subspace register
            # of 2^(16 + 14) amplitudes is as large as the limit (16 GiB),
            # too much for a shared machine; NORB 9 shows the refusal.
            for norb in (7, 9):
                fc = os.path.join(tmp, "random_%d.FCIDUMP" % norb)
                prog = os.path.join(tmp, "random_%d.mlir" % norb)
                subprocess.run([rnd, str(norb), "4", "7", "-o", fc],
                               check=True, stdout=subprocess.DEVNULL)
                run_checked([qpe, fc, "--mode", "dynamic", "-o", prog])
                info = qpe_info(qpe, fc)
                n_sys, n_est = info["qubits"], info["n_est"]
                state = 16.0 * 2 ** (n_sys + n_est)
                out_o = os.path.join(tmp, "x.o")
                run_checked([opt, prog, "-o", out_o])
                t0 = time.monotonic()
                child = subprocess.Popen([opt, out_o, "--run", "1"],
                                         stdout=subprocess.DEVNULL,
                                         stderr=subprocess.PIPE, text=True)
                lines = []
                stopped = False
                # The progress lines come every 10 s on a pipe; a reader
                # thread keeps the budget exact.
                reader = threading.Thread(
                    target=lambda: lines.extend(child.stderr), daemon=True)
                reader.start()
                reader.join(args.limit_budget)
                if child.poll() is None:
                    child.send_signal(signal.SIGINT)
                    stopped = True
                _, status, usage = os.wait4(child.pid, 0)
                child.returncode = os.waitstatus_to_exitcode(status)
                reader.join(10)
                secs = time.monotonic() - t0
                peak = usage.ru_maxrss * 1024
                text = "".join(lines)
                refused = [l for l in lines if "error:" in l]
                if refused:
                    print("  random NORB %d  %2d+%2d qubits  state %8.1f MB  "
                          "refused in %.2f s: %s"
                          % (norb, n_sys, n_est, state / 1e6, secs,
                             refused[0].strip()))
                    continue
                done = re.findall(r"(\d+) of (\d+) blocks done", text) or \
                    re.findall(r"block (\d+) of (\d+),", text)
                k, n = done[-1] if done else ("?", "?")
                print("  random NORB %d  %2d+%2d qubits  state %8.1f MB  "
                      "accepted, peak %.1f MB = %.2fx state, %s after "
                      "%.0f s, %s of %s blocks done"
                      % (norb, n_sys, n_est, state / 1e6, peak / 1e6,
                         peak / state,
                         "stopped" if stopped else "finished", secs, k, n))
                sys.stdout.flush()

        if "loop" in sections:
            print("\nCompile once, call many:")
            p = subprocess.run([loop, program("h2_0.7414", 8, 10, "repeat"),
                                "--calls", "1000"], capture_output=True, text=True)
            print("  " + (p.stdout.strip() or p.stderr.strip()))
            ok_all &= p.returncode == 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("\noverall:", "PASS" if ok_all else "FAIL")
    return 0 if ok_all else 1


if __name__ == "__main__":
    sys.exit(main())
