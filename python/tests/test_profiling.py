"""q2.profiling: q2m3's profiling API over q2's compiler (issue 23)."""
import dataclasses
import json
import logging
import multiprocessing
import os
import subprocess
import sys
import threading

import pytest

import q2
from q2.profiling import memory, timing
from q2.profiling.catalyst_ir import (COMPILATION_STAGES, analyze_ir_stages,
                                      ir_output_dir)
from q2.profiling.memory import (MemorySnapshot, MemoryTimeline,
                                 ParentSideMonitor, ProfileResult,
                                 measure_command, read_proc_status,
                                 read_smaps_rollup, take_snapshot)
from q2.profiling.orchestrator import (H2_SWEEP_GRID, MOLECULES,
                                       run_both_modes, run_single_profile,
                                       run_single_profile_in_subprocess,
                                       run_sweep)
from q2.profiling.qpe_profiler import (profile_execution,
                                       profile_hamiltonian_build,
                                       profile_qjit_compilation,
                                       profile_qjit_compilation_fixed)
from q2.profiling.timing import (ProfilingStats, profile_function,
                                 profile_section)


# --- signatures -------------------------------------------------------------

def test_dataclass_fields_are_q2m3s_then_extras():
    names = [f.name for f in dataclasses.fields(MemorySnapshot)]
    assert names[:8] == ["label", "rss_mb", "vm_peak_mb", "maxrss_mb",
                         "maxrss_children_mb", "tracemalloc_peak_mb",
                         "tracemalloc_current_mb", "elapsed_s"]
    names = [f.name for f in dataclasses.fields(ProfileResult)]
    assert names[:15] == [
        "molecule", "n_system_qubits", "n_estimation_wires", "n_trotter",
        "n_terms", "ir_scale", "mode", "phase_a", "phase_b", "phase_c",
        "timeline_peak_mb", "timeline_samples", "ir_analysis", "prob_sum",
        "error"]
    r = ProfileResult("h2", 4, 2, 1, 15, 30)  # q2m3's positional form
    assert (r.mode, r.phase_a, r.timeline_peak_mb, r.timeline_samples,
            r.ir_analysis, r.prob_sum, r.error) == \
        ("dynamic", None, 0.0, [], [], 0.0, None)
    s = MemorySnapshot("x", 1.0, 2.0, 3.0, 0.0, 0.0, 0.0)
    assert s.elapsed_s == 0.0


def test_catalyst_ir_is_ir():
    import q2.profiling.catalyst_ir as a
    import q2.profiling.ir as b
    assert a is b
    assert len(COMPILATION_STAGES) == 6


# --- import cost --------------------------------------------------------------

IMPORT_PROBE = r"""
import json, os, time
def rss():
    return int(open('/proc/self/statm').read().split()[1]) * os.sysconf('SC_PAGE_SIZE')
r0 = rss(); t0 = time.perf_counter(); c0 = time.process_time()
import q2.profiling.memory, q2.profiling.timing
dt = time.perf_counter() - t0; cpu = time.process_time() - c0; r1 = rss()
maps = open('/proc/self/maps').read()
q2.profiling.memory.take_snapshot('x')
with q2.profiling.timing.profile_section('s', verbose=False):
    pass
maps2 = open('/proc/self/maps').read()
print(json.dumps({'s': dt, 'cpu_s': cpu, 'mb': (r1 - r0) / 1e6,
                  'llvm': 'libLLVM' in maps or 'libMLIR' in maps,
                  'llvm_after_use': 'libLLVM' in maps2 or 'libMLIR' in maps2,
                  'numpy': 'numpy' in __import__('sys').modules}))
"""


def test_memory_and_timing_import_is_light():
    # Bytecode as installed (the first run writes it); best of four. The
    # 20 ms are CPU seconds: on a shared machine wall time measures the
    # other processes (wall is bounded loosely, to catch a loaded library).
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    runs = []
    for _ in range(4):
        out = subprocess.run([sys.executable, "-c", IMPORT_PROBE], check=True,
                             capture_output=True, text=True, env=env)
        runs.append(json.loads(out.stdout))
    for r in runs:
        assert not r["llvm"] and not r["llvm_after_use"] and not r["numpy"], r
    assert min(r["cpu_s"] for r in runs[1:]) <= 0.020, runs
    assert min(r["s"] for r in runs[1:]) <= 0.100, runs
    assert min(r["mb"] for r in runs[1:]) <= 5.0, runs


# --- timing: the documented examples, verbatim ----------------------------------

def run_qpe():
    return sum(range(1000))


def test_documented_profile_section_example(capsys):
    with profile_section("QPE calculation") as timing:
        result = run_qpe()
    print(f"Elapsed: {timing['elapsed']:.3f}s")
    out = capsys.readouterr().out
    assert result == 499500
    assert "[Profile] QPE calculation: " in out and "Elapsed: " in out
    assert timing["elapsed"] >= 0


def test_documented_profile_function_examples(capsys):
    @profile_function
    def compute_energy():
        ...

    @profile_function(verbose=False)
    def silent_compute():
        ...

    compute_energy()
    silent_compute()
    out = capsys.readouterr().out
    assert "[Profile] compute_energy: " in out
    assert "silent_compute" not in out
    assert silent_compute.stats.count == 1


def test_profiling_stats():
    st = ProfilingStats("calls")
    assert (st.count, st.total, st.mean, st.min, st.max) == (0, 0.0, 0.0,
                                                             0.0, 0.0)
    for x in (0.5, 0.25, 1.0):
        st.record(x)
    assert st.count == 3 and st.total == 1.75 and st.min == 0.25
    assert st.max == 1.0 and abs(st.mean - 1.75 / 3) < 1e-12
    assert st.summary().startswith("calls: 3 runs, total 1.750s")
    assert ProfilingStats().name == "default"


def test_timing_argument_errors():
    with pytest.raises(TypeError, match="name"):
        with profile_section(3):
            pass
    with pytest.raises(TypeError, match="verbose"):
        with profile_section("x", verbose="no"):
            pass
    with pytest.raises(TypeError, match="verbose"):
        profile_function(verbose=1)
    with pytest.raises(TypeError, match="elapsed"):
        ProfilingStats().record("1")
    with pytest.raises(ValueError, match="elapsed"):
        ProfilingStats().record(-1.0)


# --- memory -------------------------------------------------------------------

def test_proc_readers_and_snapshot():
    st = read_proc_status()
    assert st["VmRSS"] > 0 and st["VmPeak"] >= st["VmRSS"] and "VmHWM" in st
    assert read_proc_status(os.getpid())["VmRSS"] > 0
    sm = read_smaps_rollup()
    assert sm["Rss"] > 0 and "Pss" in sm and "Anonymous" in sm
    s = take_snapshot("now")
    assert isinstance(s, MemorySnapshot) and s.label == "now"
    assert s.rss_mb > 0 and s.maxrss_mb >= s.rss_mb * 0.9
    assert s.heap_in_use_mb > 0 and s.heap_peak_mb >= s.heap_in_use_mb
    # q2m3 types pid as int | str: its decimal text is a pid.
    assert read_proc_status(str(os.getpid()))["VmRSS"] > 0
    assert read_smaps_rollup(str(os.getpid()))["Rss"] > 0
    with pytest.raises(TypeError, match="pid"):
        read_proc_status("me")
    with pytest.raises(ValueError, match="pid"):
        read_smaps_rollup(-3)
    # A process that is gone: q2m3's zeros (strict=True: the OSError).
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    gone = read_proc_status(p.pid)
    assert gone == {"VmRSS": 0.0, "VmPeak": 0.0, "VmSize": 0.0, "VmHWM": 0.0}
    assert read_smaps_rollup(p.pid) == {}
    with pytest.raises(FileNotFoundError):
        read_proc_status(p.pid, strict=True)
    with pytest.raises(TypeError, match="label"):
        take_snapshot(None)


def test_snapshot_tracemalloc_layer():
    import tracemalloc
    tracemalloc.start()
    try:
        block = [bytes(1000) for _ in range(5000)]
        s = take_snapshot("traced")
        del block
    finally:
        tracemalloc.stop()
    assert s.tracemalloc_current_mb > 4 and s.tracemalloc_peak_mb >= \
        s.tracemalloc_current_mb


@pytest.mark.skipif(os.environ.get("Q2_ASAN") == "1",
                    reason="ASan's allocator replaces malloc: no heap figures")
def test_memory_timeline_peak_and_heap_peak():
    with MemoryTimeline(interval_s=0.005) as tl:
        block = b"\x01" * (80 << 20)  # 80 MB written: resident, heap
        tl.sample_now()
        del block
    assert len(tl.samples) >= 2
    assert tl.peak_rss_mb == tl.peak                  # q2m3's name
    assert tl.peak >= max(r for _, r in tl.samples) - 1e-9
    assert tl.peak >= 80
    assert tl.peak_smaps["Rss"] >= 60
    assert tl.heap_peak_mb >= 80       # sampled C/C++ heap peak
    assert tl.heap_samples[-1][1] < tl.heap_peak_mb - 60
    with pytest.raises(ValueError, match="interval_s"):
        MemoryTimeline(0)
    with pytest.raises(TypeError, match="interval_s"):
        MemoryTimeline("fast")


CHILD = ("import time; b = b'\\x01' * (120 << 20); time.sleep(0.4); del b; "
         "time.sleep(0.2)")


def test_parent_side_monitor_keeps_values_after_exit():
    p = subprocess.Popen([sys.executable, "-c", CHILD])
    mon = ParentSideMonitor(p.pid, interval_s=0.01).start()
    p.wait()
    mon.stop()
    assert mon.exited
    assert mon.peak_rss_mb >= 110, mon.to_dict()
    assert mon.peak_hwm_mb >= mon.peak_rss_mb - 1
    assert mon.peak_smaps["Rss"] >= 100
    with pytest.raises(TypeError, match="pid"):
        ParentSideMonitor("x")


def test_measure_command(tmp_path):
    r = measure_command([sys.executable, "-c", "print(1)"], tmp_path / "ok",
                        wall_s=60, rss_mb=2000)
    for k in ("command", "exit_code", "reason", "wall_s", "peak_tree_rss_mb",
              "poll_s", "rss_budget_mb", "wall_budget_s", "scope",
              "limitation"):
        assert k in r, k
    assert r["exit_code"] == 0 and r["rss_budget_mb"] == 2000
    for bad in ([], "echo hi", ["a\0b"], [1]):
        with pytest.raises(ValueError, match="command"):
            measure_command(bad, tmp_path / "bad")
    with pytest.raises(ValueError, match="wall_s"):
        measure_command(["true"], tmp_path / "bad", wall_s=float("inf"))
    with pytest.raises(ValueError, match="rss_mb"):
        measure_command(["true"], tmp_path / "bad", rss_mb=0)
    with pytest.raises(ValueError, match="env"):
        measure_command(["true"], tmp_path / "bad", env={"A=B": "1"})
    assert not (tmp_path / "bad").exists()  # nothing created
    with pytest.raises(FileExistsError):
        measure_command(["true"], tmp_path / "ok")
    with pytest.raises(OSError):
        measure_command(["/nonexistent/prog"], tmp_path / "nope")
    with pytest.raises(TypeError):  # wall_s is keyword-only, as in q2m3
        measure_command(["true"], tmp_path / "kw", 60)


def test_measure_command_without_proc(tmp_path, monkeypatch):
    real = os.path.isdir
    monkeypatch.setattr(os.path, "isdir",
                        lambda p: False if p == "/proc/self" else real(p))
    with pytest.raises(RuntimeError, match="/proc"):
        measure_command(["true"], tmp_path / "np")
    assert not (tmp_path / "np").exists()


# --- measuring does not disturb the process ---------------------------------------

def test_profiled_compile_keeps_process_peak(h2_path):
    block = b"\x01" * (300 << 20)   # 300 MB resident, then freed
    del block
    before = take_snapshot("before")
    res = q2.compile(h2_path, n_est=3, n_trotter=2, profile=True)
    a = profile_hamiltonian_build("h2", 2, 1)
    profile_qjit_compilation(*a[1:])
    after = take_snapshot("after")
    assert after.maxrss_mb >= before.maxrss_mb, (before, after)
    assert after.maxrss_mb >= 300
    assert all(s.peak_source == "sampled" for s in res.stages)
    assert all(not s.peak_reset_accepted for s in res.stages)


# --- IR -------------------------------------------------------------------------

def test_ir_output_dir_keeps_every_stage_without_chdir(tmp_path, h2_path):
    cwd = os.getcwd()
    with ir_output_dir(tmp_path / "ir") as d:
        assert os.getcwd() == cwd
        res = q2.compile(h2_path, n_est=2, n_trotter=1)
        res2 = q2.compile(h2_path, n_est=2, n_trotter=1, mode="fixed")
    assert d == str(tmp_path / "ir")
    assert res.ir_dir != res2.ir_dir
    files = sorted(os.listdir(res.ir_dir))
    assert files[0] == "0_Input.mlir" and files[-1] == "6_ObjectCode.o"
    ir = analyze_ir_stages(res)
    assert [s for s, _, _ in ir] == COMPILATION_STAGES
    assert all(kb > 0 for _, kb, _ in ir)
    # Catalyst's names are accepted and kept as given.
    ir2 = analyze_ir_stages(res, stages=["mlir", "HLOLoweringPass",
                                         "LLVMIRTranslation"])
    assert [s for s, _, _ in ir2] == ["mlir", "HLOLoweringPass",
                                      "LLVMIRTranslation"]
    assert ir2[1][1:] == ir[0][1:]
    # Outside the block nothing is kept; the profile still has the figures.
    res3 = q2.compile(h2_path, n_est=2, n_trotter=1)
    assert res3.ir_dir is None
    assert [s for s, _, _ in analyze_ir_stages(res3)] == COMPILATION_STAGES
    # q2m3's own stage list (Catalyst's names) works unchanged.
    q2m3_stages = ["mlir", "QuantumCompilationStage", "HLOLoweringStage",
                   "BufferizationStage", "MLIRToLLVMDialectConversion",
                   "LLVMIRTranslation"]
    assert [s for s, _, _ in analyze_ir_stages(res, q2m3_stages)] == \
        q2m3_stages
    # An unknown stage is skipped, as q2m3 skips one it cannot export, with
    # a warning naming it.
    with pytest.warns(UserWarning, match="unknown stage 'Nope' skipped"):
        ir3 = analyze_ir_stages(res, stages=["Nope", "HLOLowering"])
    assert [s for s, _, _ in ir3] == ["HLOLowering"]
    with pytest.raises(TypeError, match="stages"):
        analyze_ir_stages(res, stages="HLOLowering")
    with pytest.raises(TypeError, match="compiled_fn"):
        analyze_ir_stages(42)


def test_ir_output_dir_temporary_and_thread_safe(h2_path):
    seen = {}

    def worker(name):
        with ir_output_dir() as d:
            r = q2.compile(h2_path, n_est=2, n_trotter=1)
            seen[name] = (d, r.ir_dir, sorted(os.listdir(r.ir_dir)))
        seen[name] += (os.path.exists(d),)

    ts = [threading.Thread(target=worker, args=(i,)) for i in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    dirs = {v[0] for v in seen.values()}
    assert len(dirs) == 3
    for d, ird, files, exists in seen.values():
        assert ird.startswith(d) and "0_Input.mlir" in files and not exists


# --- qpe_profiler -------------------------------------------------------------

def test_three_phases_h2():
    import numpy as np
    import tracemalloc
    tracemalloc.start()
    try:
        snap, ops, coeffs, hf, params = profile_hamiltonian_build(
            MOLECULES["h2"], 3, 2)
        sb, tl, ir, fn = profile_qjit_compilation(ops, coeffs, hf, params)
        sc, prob_sum = profile_execution(fn, coeffs, n_calls=3)
    finally:
        tracemalloc.stop()
    assert len(ops) == len(coeffs) == params["n_terms"] > 1
    assert list(hf) == [1, 1, 0, 0] and params["n_system_qubits"] == 4
    # q2m3's circuit_params keys, and its labels.
    for k in ("n_system_qubits", "n_estimation_wires", "n_trotter",
              "n_terms", "base_time", "energy_shift", "hf_state",
              "base_coeffs", "op_index_map"):
        assert k in params, k
    assert params["base_time"] > 0 and ops[params["op_index_map"][
        "identity_idx"]] == "IIII"
    assert snap.label == "Phase A: Hamiltonian Build" and snap.elapsed_s > 0
    assert sb.label == "Phase B: @qjit Compilation"
    assert sc.label == "Phase C: Execution (3x)"
    # rss_mb and tracemalloc_current_mb are the change over the phase (as
    # q2m3's); the absolute values are beside them.
    for s in (snap, sb, sc):
        assert abs(s.rss_mb) < s.rss_after_mb, s
        assert s.tracemalloc_peak_mb > 0, s       # traced, peak reset per phase
        assert s.tracemalloc_after_mb >= s.tracemalloc_current_mb
    assert [s for s, _, _ in ir] == COMPILATION_STAGES
    assert tl.peak_rss_mb > 0 and len(tl.samples) >= 2
    assert [s["name"] for s in sb.stages][1:] == COMPILATION_STAGES
    assert sb.heap_peak_mb > 0 and sb.heap_peak_source == "sampled"
    assert abs(prob_sum - 1) < 1e-9
    # The compiled function returns the probabilities, as q2m3's; q2's
    # energy and CompileResult beside.
    c = np.array(coeffs)
    probs = fn(c)
    assert isinstance(probs, np.ndarray) and probs.shape == (8,)
    assert abs(np.sum(fn(c)) - 1) < 1e-9
    probs2, energy = fn(c, with_energy=True)
    assert (probs2 == probs).all() and float(energy) == float(fn.last_energy)
    assert fn.result.report is fn.report and fn.mode == "dynamic"
    assert abs(energy - fn.metadata.exact_energy) < 2 * energy.resolution
    # Phase B used Phase A's plan.
    assert abs(fn.metadata.base_time - params["base_time"]) < 1e-12
    assert abs(fn.metadata.energy_shift - params["energy_shift"]) < 1e-12
    with pytest.raises(TypeError, match="coefficients"):
        fn()                                  # q2m3's fn needs them too
    # keep_intermediate=False keeps only the final stage.
    fb, _, fir, ffn = profile_qjit_compilation_fixed(
        ops, coeffs, hf, params, keep_intermediate=False)
    assert [s for s, _, _ in fir] == ["ObjectCode"]
    assert fb.label == "Phase B: @qjit Compilation (H_fixed)"
    _, p2 = profile_execution(ffn, coeffs, is_fixed=True)
    assert abs(p2 - 1) < 1e-9 and ffn().shape == (8,)
    with pytest.raises(TypeError, match="no arguments"):
        ffn(coeffs)
    # is_fixed must match the program: no silent run of the defaults.
    with pytest.raises(ValueError, match="is_fixed=True.*dynamic"):
        profile_execution(fn, coeffs, is_fixed=True)
    with pytest.raises(ValueError, match="is_fixed=False.*fixed"):
        profile_execution(ffn, coeffs, is_fixed=False)
    with pytest.raises(ValueError, match="is_fixed=True.*dynamic"):
        profile_execution(fn.result, coeffs, is_fixed=True)  # q2.compile's
    with pytest.raises(ValueError, match="n_calls"):
        profile_execution(fn, coeffs, n_calls=0)
    with pytest.raises(ValueError, match="same non-zero length"):
        profile_qjit_compilation(ops, coeffs[:-1], hf, params)
    with pytest.raises(ValueError, match="hf_state"):
        profile_qjit_compilation(ops, coeffs, [1, 1], params)
    with pytest.raises(ValueError, match="mol"):
        profile_hamiltonian_build("h2o", 3, 2)
    with pytest.raises(TypeError, match="n_est"):
        profile_hamiltonian_build("h2", 3.0, 2)


def test_keep_intermediate_writes_no_ir(tmp_path):
    _, ops, coeffs, hf, params = profile_hamiltonian_build("h2", 2, 1)
    with ir_output_dir(tmp_path / "ir"):
        _, _, ir, fn = profile_qjit_compilation(ops, coeffs, hf, params,
                                                keep_intermediate=False)
    assert os.listdir(tmp_path / "ir") == [] and fn.ir_dir is None
    _, _, ir2, _ = profile_qjit_compilation(ops, coeffs, hf, params,
                                            ir_dir=tmp_path / "kept")
    assert [s for s, _, _ in ir2] == COMPILATION_STAGES
    assert ir2[-1] == ir[0]
    assert sorted(os.listdir(tmp_path / "kept")) == ["compile_1"]


def test_changed_coefficients_change_the_fixed_program():
    _, ops, coeffs, hf, params = profile_hamiltonian_build("h2", 4, 2)
    e = [profile_qjit_compilation_fixed(ops, c, hf, params,
                                        keep_intermediate=False)[3](
                                            with_energy=True)[1]
         for c in (coeffs, [2 * x for x in coeffs])]
    assert e[0] != e[1]


def test_package_level_names_are_q2m3s():
    import q2.profiling as profiling
    q2m3_all = {
        "MemorySnapshot", "ProfileResult", "MemoryTimeline",
        "ParentSideMonitor", "take_snapshot", "COMPILATION_STAGES",
        "ir_output_dir", "analyze_ir_stages", "profile_hamiltonian_build",
        "profile_qjit_compilation", "profile_qjit_compilation_fixed",
        "profile_execution", "MOLECULES", "H2_SWEEP_GRID",
        "run_single_profile", "run_single_profile_in_subprocess",
        "run_sweep", "run_both_modes", "ProfilingStats", "profile_function",
        "profile_section"}
    assert q2m3_all <= set(profiling.__all__)
    from q2.profiling import take_snapshot as ts, run_both_modes as rb
    assert ts is take_snapshot and rb is run_both_modes
    ns = {}
    exec("from q2.profiling import *", ns)
    assert q2m3_all <= set(ns)


# --- orchestrator -------------------------------------------------------------

def test_run_single_profile_both_in_process():
    msgs = []
    f, d = run_single_profile(MOLECULES["h2"], 2, 1, on_progress=msgs.append)
    assert (f.mode, d.mode) == ("fixed", "dynamic")
    for r in (f, d):
        assert r.error is None, r.error
        assert (r.n_system_qubits, r.n_estimation_wires, r.n_trotter) == \
            (4, 2, 1)
        assert abs(r.prob_sum - 1) < 1e-9 and r.energy is not None
        assert r.energy_error is not None and r.compile_peak_mb > 0
        assert r.timeline_peak_mb > 0 and r.ir_analysis
    assert msgs and all(isinstance(m, str) for m in msgs)
    one = run_single_profile("h2", 2, 1, mode="fixed")
    assert isinstance(one, ProfileResult)


def test_run_single_profile_in_subprocess_spawn():
    ctx = multiprocessing.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=run_single_profile_in_subprocess,
                    args=("h2", 2, 1, q, "dynamic"))
    p.start()
    r = q.get(timeout=120)
    p.join()
    assert p.exitcode == 0 and r.error is None and r.pid == p.pid
    assert abs(r.prob_sum - 1) < 1e-9
    assert r.phase_b.tracemalloc_peak_mb > 0     # traced, as in q2m3


def test_isolated_runs_are_points_of_the_sweep_engine(tmp_path):
    import q2
    from q2.profiling import orchestrator
    # One H2 grid, one timeout: the engine's (SweepSpec).
    assert orchestrator.H2_SWEEP_GRID == [tuple(p) for p in
                                          q2._q2.default_h2_grid()]
    assert not hasattr(orchestrator, "CHILD_TIMEOUT_S")
    msgs = []
    rf, rd, pf, pdyn = run_both_modes("h2", 2, 1, ir_dir=tmp_path / "ir",
                                      on_progress=msgs.append,
                                      out_dir=tmp_path / "sw")
    assert (rf.mode, rd.mode) == ("fixed", "dynamic")
    assert rf.error is None and rd.error is None
    assert rf.pid != rd.pid != os.getpid()
    for p in (pf, pdyn):
        assert p["exit_code"] == 0 and p["peak_rss_mb"] > 10
        assert p["peak_hwm_mb"] >= p["peak_rss_mb"] - 1 and p["exited"]
    # Two processes, one IR directory: each compile got its own.
    assert sorted(os.listdir(tmp_path / "ir")) == ["compile_1", "compile_2"]
    assert [s for s, _, _ in analyze_ir_stages(tmp_path / "ir" /
                                               "compile_2")] == \
        COMPILATION_STAGES
    # q2-profile's layout and records: one sweep, two points.
    sweep = q2.load_results(tmp_path / "sw")
    assert [p.key for p in sweep] == ["H2-dynamic-e2-t1", "H2-fixed-e2-t1"]
    assert all(p.status == "ok" and p.report is not None for p in sweep)
    spec = json.loads((tmp_path / "sw" / "sweep.json").read_text())
    assert "600" in json.dumps(spec)        # SweepSpec's wall budget
    assert pf["point_dir"].endswith("H2-fixed-e2-t1")
    assert pf["n_samples"] == sweep[1].phases.BC.polls
    assert msgs[0].startswith("[0/2] H2 (2,1) fixed: started"), msgs
    # A rerun resumes: both points are done.
    msgs2 = []
    rf2, rd2, _, _ = run_both_modes("h2", 2, 1, on_progress=msgs2.append,
                                    out_dir=tmp_path / "sw")
    assert all("done before" in m for m in msgs2), msgs2
    assert rf2 == rf and rd2 == rd
    # A custom molecule may be isolated too (q2's, beside mol_key).
    from q2.profiling.molecules import MoleculeConfig
    mine = MoleculeConfig(**{**MOLECULES["h2"].__dict__, "name": "mine"})
    r, = run_sweep(mine, "fixed", grid=[(2, 1)]).values()
    assert r.molecule == "mine" and r.error is None


def test_run_sweep_skips_failed_points(caplog):
    msgs = []
    with caplog.at_level(logging.WARNING):
        res = run_sweep("h2", "fixed", grid=[(2, 1), (40, 1)],
                        on_progress=msgs.append)
    assert list(res) == [(2, 1)]
    assert any("(40,1)" in r.getMessage() for r in caplog.records)
    assert msgs


def test_misuse_is_refused_in_q2_profiling():
    with pytest.raises(ValueError, match="mode"):
        run_sweep("h2", mode="both")
    with pytest.raises(ValueError, match="mode"):
        run_sweep("h2", mode="dyn")
    with pytest.raises(TypeError, match="grid"):
        run_sweep("h2", grid="2x1")
    with pytest.raises(TypeError, match="grid"):
        run_sweep("h2", grid=[(2,)])
    with pytest.raises(ValueError, match="mol_key"):
        run_sweep("./out")
    with pytest.raises(TypeError, match="on_progress"):
        run_sweep("h2", on_progress="print")
    with pytest.raises(ValueError, match="mode"):
        run_single_profile("h2", 2, 1, mode="all")
    with pytest.raises(TypeError, match="n_trotter"):
        run_both_modes("h2", 2, "1")


def test_misuse_is_refused_in_top_level_q2(tmp_path, monkeypatch, h2_path):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="molecule key"):
        q2.run_sweep("h2")
    assert not (tmp_path / "h2").exists()
    assert q2._modes_arg("run_sweep", "dynamic") == ["dynamic"]
    assert q2._modes_arg("run_sweep", "both") == ["fixed", "dynamic"]
    with pytest.raises(ValueError, match="modes"):
        q2.run_sweep(tmp_path / "s", modes="dyn")
    with pytest.raises(ValueError, match="modes"):
        q2.run_sweep(tmp_path / "s", modes=["fixed", "d"])
    with pytest.raises(ValueError, match="run_both_modes"):
        q2.run_single_profile(h2_path, tmp_path / "p", 2, 1, mode="both")
    with pytest.raises(TypeError):          # q2m3's signature at top level
        q2.run_both_modes("h2", 2, 1)
    with pytest.raises(TypeError, match="out_dir"):
        q2.run_both_modes("h2", 2, 1, 3)
    with pytest.raises(TypeError, match="out_dir"):
        q2.run_single_profile(h2_path, 2, 1, 3)
    with pytest.raises(ValueError, match="mode"):
        q2.compile(h2_path, n_est=2, n_trotter=1, mode="both")
    assert os.listdir(tmp_path) == []


def test_rows_of_profile_results(tmp_path):
    from q2.profiling.orchestrator import (summary_csv, to_dataframe,
                                           write_summary_csv)
    rf, rd = run_single_profile("h2", 2, 1)
    results = [rf, rd]
    df = to_dataframe(results)
    assert len(df) == 2
    for col in ("prob_sum", "energy", "energy_error", "compile_peak_mb",
                "timeline_peak_mb", "ir_kb_HLOLowering",
                "ir_lines_LLVMDialect", "ir_kb_ObjectCode"):
        assert col in df.columns and df[col].notna().all(), col
    p = write_summary_csv(results, tmp_path / "summary.csv")
    assert open(p).read() == summary_csv(results)


def test_top_level_sweep_rows_carry_report_columns(tmp_path):
    sw = q2.run_sweep(tmp_path / "sw", grid="2x1", modes="fixed", runs=1)
    assert len(sw) == 1 and sw[0].status == "ok"
    df = sw.to_dataframe()
    for col in ("prob_sum", "energy", "exact_energy", "energy_error",
                "compile_peak_mb", "timeline_peak_mb", "ir_kb_HLOLowering",
                "ir_lines_LLVMIR", "compile_s", "peak_rss_mb"):
        assert col in df.columns, col
    assert abs(df["prob_sum"][0] - 1) < 1e-9
    assert df["ir_kb_HLOLowering"][0] > 0
