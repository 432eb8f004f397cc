"""A q2m3 notebook, run as its user wrote it with only the imports changed
(``q2m3`` -> ``q2``; issue 39, point 4): the report helpers of q2m3's
examples/qpe_memory_profile.py (rich tables replaced by print), then cells
that profile H2 and H3O+ in both modes, sweep, build a DataFrame, plot, and
scan a custom molecule. Kept fast: n_est 2, n_trotter 1 where the flow lets
the user choose, a three-point sweep."""
import dataclasses
import tracemalloc

import pytest

from conftest import needs_psi4

# --- the notebook's imports (q2m3 -> q2) --------------------------------------
from q2.molecule import MoleculeConfig
from q2.profiling import (H2_SWEEP_GRID, MOLECULES, ProfileResult,
                          analyze_ir_stages, ir_output_dir,
                          profile_execution, profile_hamiltonian_build,
                          profile_qjit_compilation, run_both_modes,
                          run_single_profile, run_sweep)


# --- q2m3's report helpers (examples/qpe_memory_profile.py), printing -------

def print_circuit_params(result: ProfileResult):
    mode_label = ("H_fixed (compile-time constants)" if result.mode == "fixed"
                  else "H_dynamic (runtime coefficients)")
    print(f"Molecule:          {result.molecule}")
    print(f"Hamiltonian mode:  {mode_label}")
    print(f"System qubits:     {result.n_system_qubits}")
    print(f"Estimation wires:  {result.n_estimation_wires}")
    print(f"Total qubits:      "
          f"{result.n_system_qubits + result.n_estimation_wires}")
    print(f"Trotter steps:     {result.n_trotter}")
    print(f"Hamiltonian terms: {result.n_terms}")
    print(f"IR scale estimate: {result.ir_scale} ({result.n_estimation_wires}"
          f"x{result.n_trotter}x{result.n_terms})")


def print_memory_table(result: ProfileResult):
    for snap in [result.phase_a, result.phase_b, result.phase_c]:
        if snap is None:
            continue
        print(f"{snap.label:40} {snap.rss_mb:+8.1f} {snap.maxrss_mb:8.1f} "
              f"{snap.maxrss_children_mb:8.1f} {snap.tracemalloc_peak_mb:8.1f}"
              f" {snap.elapsed_s:8.2f}")


def print_ir_analysis(ir_analysis):
    if not ir_analysis:
        print("No IR analysis data available.")
        return
    prev_size = None
    for stage, size_kb, n_lines in ir_analysis:
        amp = f"{size_kb / prev_size:.1f}x" if prev_size and prev_size > 0 \
            else "-"
        print(f"{stage:28} {size_kb:10.1f} {n_lines:10,} {amp:>8}")
        prev_size = size_kb
    if len(ir_analysis) >= 2:
        first_size = ir_analysis[0][1]
        last_size = ir_analysis[-1][1]
        if first_size > 0:
            print(f"  Total IR amplification: {first_size:.1f} KB -> "
                  f"{last_size:.1f} KB ({last_size / first_size:.1f}x)")


def print_memory_timeline(samples):
    if len(samples) < 3:
        return
    rss_values = [s[1] for s in samples]
    min_rss, max_rss = min(rss_values), max(rss_values)
    rss_range = max_rss - min_rss
    if rss_range < 1:
        print("  (RSS variation < 1 MB - flat)")
        return
    step = max(1, len(samples) // min(20, len(samples)))
    for i in range(0, len(samples), step):
        t, rss = samples[i]
        print(f"  {t:6.1f}s |{'#' * int((rss - min_rss) / rss_range * 60)}"
              f" {rss:.0f} MB")
    print(f"  Peak RSS: {max_rss:.0f} MB  |  Range: {min_rss:.0f}-"
          f"{max_rss:.0f} MB")


def print_summary(result: ProfileResult):
    if result.phase_b is None:
        return
    peak_rss = result.phase_b.maxrss_mb
    children_rss = result.phase_b.maxrss_children_mb
    largest_stage, largest_size = "N/A", 0
    for stage, size_kb, _ in result.ir_analysis:
        if size_kb > largest_size:
            largest_size, largest_stage = size_kb, stage
    print(f"Python Process RSS: {peak_rss:.0f} MB ({peak_rss / 1024:.2f} GB)")
    print(f"Total Peak (self+children): {peak_rss + children_rss:.0f} MB")
    print(f"Compilation Time: {result.phase_b.elapsed_s:.1f}s")
    print(f"Largest IR Stage: {largest_stage} ({largest_size:.0f} KB)")
    print(f"Prob Sum (sanity): {result.prob_sum:.6f}")


def print_mode_comparison(fixed, dynamic, parent_fixed=None,
                          parent_dynamic=None):
    def ratio(a, b):
        return f"{b / a:.2f}x" if a > 0 else "-"
    rows = [("Compile Time (s)", fixed.phase_b.elapsed_s,
             dynamic.phase_b.elapsed_s),
            ("Python RSS - self (MB)", fixed.phase_b.maxrss_mb,
             dynamic.phase_b.maxrss_mb),
            ("Compiler RSS (MB)", fixed.phase_b.maxrss_children_mb,
             dynamic.phase_b.maxrss_children_mb),
            ("Timeline Peak (MB)", fixed.timeline_peak_mb,
             dynamic.timeline_peak_mb),
            ("Python Heap Peak (MB)", fixed.phase_b.tracemalloc_peak_mb,
             dynamic.phase_b.tracemalloc_peak_mb),
            ("Exec Time (5x, s)", fixed.phase_c.elapsed_s,
             dynamic.phase_c.elapsed_s),
            ("Prob Sum", fixed.prob_sum, dynamic.prob_sum)]
    if parent_fixed and parent_dynamic:
        rows += [("Parent-observed (MB)", parent_fixed["peak_rss_mb"],
                  parent_dynamic["peak_rss_mb"]),
                 ("VmHWM - kernel (MB)", parent_fixed["peak_hwm_mb"],
                  parent_dynamic["peak_hwm_mb"])]
    for name, a, b in rows:
        print(f"{name:24} {a:10.3f} {b:10.3f} {ratio(a, b):>8}")
    if parent_fixed and parent_dynamic:
        fix_smaps = parent_fixed.get("peak_smaps", {})
        dyn_smaps = parent_dynamic.get("peak_smaps", {})
        for key in ["Rss", "Pss", "Anonymous", "Private_Dirty"]:
            fv, dv = fix_smaps.get(key, 0.0), dyn_smaps.get(key, 0.0)
            if fv > 0 or dv > 0:
                print(f"{key:16} {fv:8.1f} {dv:8.1f} {dv - fv:+8.1f}")


def print_sweep_table(results):
    for r in results:
        mode_tag = "fixed" if r.mode == "fixed" else "dyn"
        if r.error:
            print(f"{mode_tag:6} {r.n_estimation_wires:3} {r.n_trotter:3} "
                  f"{r.ir_scale:6} {r.error}")
        else:
            ok = "OK" if abs(r.prob_sum - 1.0) < 0.01 else "BAD"
            print(f"{mode_tag:6} {r.n_estimation_wires:3} {r.n_trotter:3} "
                  f"{r.ir_scale:6} {r.phase_b.maxrss_mb:8.0f} "
                  f"{r.phase_b.elapsed_s:6.1f} {r.prob_sum:.6f} {ok}")


def print_single_result(result):
    print_circuit_params(result)
    print_memory_table(result)
    print_ir_analysis(result.ir_analysis)
    print_memory_timeline(result.timeline_samples)
    print_summary(result)


# --- the cells -------------------------------------------------------------

def test_cell_single_mode_in_process(capsys):
    # q2m3's qpe_memory_profile.py, single mode: in this process, traced.
    tracemalloc.start()
    result = run_single_profile(MOLECULES["h2"], 2, 1, mode="dynamic",
                                on_progress=print)
    tracemalloc.stop()
    assert not result.error, result.error
    print_single_result(result)
    out = capsys.readouterr().out
    assert "Molecule:          H2" in out and "Phase B: @qjit Compilation" in out
    assert "Total IR amplification" in out
    assert abs(result.prob_sum - 1) < 1e-9
    b = result.phase_b
    assert b.tracemalloc_peak_mb > 0          # traced: the Python heap layer
    assert abs(b.rss_mb) < b.rss_after_mb     # a change, not the process RSS
    assert [s for s, _, _ in result.ir_analysis] == [
        "HLOLowering", "QuantumLowering", "Bufferization", "LLVMDialect",
        "LLVMIR", "ObjectCode"]


@pytest.mark.parametrize("mol_key", ["h2", "h3o"])
def test_cell_both_modes_isolated(mol_key, capfd):
    msgs = []
    fixed, dynamic, parent_fixed, parent_dynamic = run_both_modes(
        mol_key, 2, 1, on_progress=msgs.append)
    for result in [fixed, dynamic]:
        assert not result.error, result.error
        print_single_result(result)
    print_mode_comparison(fixed, dynamic, parent_fixed=parent_fixed,
                          parent_dynamic=parent_dynamic)
    out, err = capfd.readouterr()     # file descriptors: children too
    assert "Parent-observed (MB)" in out and "Anonymous" in out
    assert err == ""                   # nothing printed outside on_progress
    assert (fixed.mode, dynamic.mode) == ("fixed", "dynamic")
    assert fixed.molecule == MOLECULES[mol_key].name
    assert fixed.n_system_qubits == 2 * MOLECULES[mol_key].active_orbitals
    for r, p in ((fixed, parent_fixed), (dynamic, parent_dynamic)):
        assert abs(r.prob_sum - 1) < 1e-9
        # Isolated runs trace the Python heap, as q2m3's do.
        assert r.phase_a.tracemalloc_peak_mb > 0
        assert r.phase_b.tracemalloc_peak_mb > 0
        assert p["peak_rss_mb"] > 10 and p["peak_hwm_mb"] > 10
        assert p["peak_smaps"]["Rss"] > 10 and p["n_samples"] >= 1
    assert msgs and all(isinstance(m, str) for m in msgs)


def test_cell_sweep_dataframe_and_plot(tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    results = run_sweep("h2", mode="dynamic", grid=H2_SWEEP_GRID[:3],
                        on_progress=lambda m: None)
    assert list(results) == H2_SWEEP_GRID[:3]
    print_sweep_table(list(results.values()))
    df = pd.DataFrame([{
        "n_est": r.n_estimation_wires, "n_trotter": r.n_trotter,
        "ir_scale": r.ir_scale, "compile_s": r.phase_b.elapsed_s,
        "peak_mb": r.timeline_peak_mb, "maxrss_mb": r.phase_b.maxrss_mb,
        "python_heap_mb": r.phase_b.tracemalloc_peak_mb,
        "ir_kb": max(kb for _, kb, _ in r.ir_analysis),
        "prob_sum": r.prob_sum} for r in results.values()])
    assert len(df) == 3 and (df["prob_sum"] - 1).abs().max() < 1e-9
    assert (df["python_heap_mb"] > 0).all() and (df["peak_mb"] > 0).all()
    assert df["ir_scale"].is_monotonic_increasing
    full = pd.DataFrame([dataclasses.asdict(r) for r in results.values()])
    assert {"phase_b", "timeline_samples", "ir_analysis"} <= set(full.columns)
    fig, ax = plt.subplots()
    ax.plot(df["ir_scale"], df["peak_mb"], "o-", label="timeline peak")
    ax.set_xlabel("IR scale (n_est x n_trotter x n_terms)")
    ax.set_ylabel("MB")
    ax.legend()
    fig.savefig(tmp_path / "sweep.png")
    plt.close(fig)
    assert (tmp_path / "sweep.png").stat().st_size > 1000


def test_cell_phase_by_phase(tmp_path):
    # The phases by hand, as a notebook that looks inside each one.
    snap_a, ops, coeffs, hf_state, params = profile_hamiltonian_build(
        MOLECULES["h2"], 2, 1)
    with ir_output_dir(str(tmp_path / "ir")):
        snap_b, timeline, ir, fn = profile_qjit_compilation(
            ops, coeffs, hf_state, params, ir_dir=str(tmp_path / "ir"))
    import numpy as np
    probs = fn(np.array(coeffs))
    assert probs.shape == (4,) and abs(np.sum(probs) - 1) < 1e-9
    snap_c, prob_sum = profile_execution(fn, coeffs)
    assert abs(prob_sum - 1) < 1e-9 and snap_c.label == \
        "Phase C: Execution (5x)"
    assert timeline.peak_rss_mb > 0 and len(timeline.samples) >= 2
    assert [s for s, _, _ in analyze_ir_stages(fn)] == [s for s, _, _ in ir]
    assert params["base_time"] > 0 and params["energy_shift"] is not None


@needs_psi4
def test_cell_custom_molecule_scan(capfd):
    energies = {}
    for r in (0.60, 0.74, 1.20):
        mol = MoleculeConfig(name="H2", symbols=["H", "H"],
                             coords=[[0.0, 0.0, 0.0], [0.0, 0.0, r]],
                             charge=0, active_electrons=2, active_orbitals=2)
        result = run_single_profile(mol, 3, 2, mode="dynamic",
                                    on_progress=print)
        assert not result.error, result.error
        energies[r] = (result.energy, result.exact_energy)
        print(f"R = {r:.2f} A: E_QPE = {result.energy:.6f} Ha, exact "
              f"{result.exact_energy:.6f} Ha, prob_sum {result.prob_sum:.6f}")
    exact = [e for _, e in energies.values()]
    assert len(set(exact)) == 3
    # The curve has its minimum near equilibrium.
    assert energies[0.74][1] < energies[0.60][1] < energies[1.20][1]
    assert capfd.readouterr().err == ""   # psi4's lines went to on_progress
