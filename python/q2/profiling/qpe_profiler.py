"""The three profiled phases of a QPE compile, with q2m3's signatures, run
by q2's own pipeline in this process (the name "qjit" is kept for drop-in
use; nothing of Catalyst is involved):

    A  profile_hamiltonian_build   Hamiltonian -> Pauli words, coefficients
                                   (q2's FCIDUMP reader and Jordan-Wigner)
    B  profile_qjit_compilation[_fixed]
                                   the six stages (q2.compile, profiled),
                                   with a MemoryTimeline around them
    C  profile_execution           calls of the compiled circuit

Each returns q2m3's tuple. Phase B's snapshot carries per-stage figures in
``snapshot.stages`` (wall, peak RSS and its source, C/C++ heap after and
sampled peak, IR size); the compiled function is a ``q2.CompileResult``:
``fn(coeffs)`` (dynamic) or ``fn()`` (fixed) returns (probabilities,
energy).

Profiling does not disturb the process: the stage peaks are sampled (the
kernel's VmHWM, and so ru_maxrss, is never reset), see docs/python.md.
"""
import json
import numbers
import os
import tempfile
import time

from . import memory as _memory
from ._args import check_bool, check_int
from .ir import analyze_ir_stages, ir_output_dir
from .memory import MB, MemoryTimeline, take_snapshot
from .molecules import molecule_arg

__all__ = ["profile_hamiltonian_build", "profile_qjit_compilation",
           "profile_qjit_compilation_fixed", "profile_execution"]

#: MemoryTimeline interval of Phase B (q2's compiles take milliseconds).
TIMELINE_INTERVAL_S = 0.005



def profile_hamiltonian_build(mol, n_est, n_trotter):
    """Phase A: the molecule's qubit Hamiltonian (FCIDUMP -> Jordan-Wigner,
    in q2's C++ library). Returns (snapshot, ops, coeffs, hf_state,
    circuit_params): Pauli words ("XXYY", qubit 0 leftmost), their
    coefficients, the Hartree-Fock occupation (NumPy int array) and the
    circuit's parameters. ``mol``: a MoleculeConfig or a MOLECULES key."""
    fn = "profile_hamiltonian_build"
    mol = molecule_arg(fn, mol)
    n_est = check_int(fn, "n_est", n_est, 1)
    n_trotter = check_int(fn, "n_trotter", n_trotter, 1)
    _memory._reset_heap_peak()
    t0 = time.perf_counter()
    import numpy as np
    import q2
    path = mol.hamiltonian_path()
    h = q2._q2.qubit_hamiltonian(path)
    ops = [w for w, _ in h["terms"]]
    coeffs = [float(c) for _, c in h["terms"]]
    hf_state = np.array(h["hf_state"], dtype=int)
    params = {
        "molecule": mol.name, "hamiltonian": path,
        "n_system_qubits": int(h["n_qubits"]),
        "n_electrons": int(h["n_electrons"]), "ms2": int(h["ms2"]),
        "n_estimation_wires": n_est, "n_trotter": n_trotter,
        "n_terms": len(ops),
    }
    snap = take_snapshot("phase_a")
    snap.elapsed_s = time.perf_counter() - t0
    return snap, ops, coeffs, hf_state, params


def _check_inputs(fn, ops, coeffs, hf_state, circuit_params):
    if isinstance(ops, (str, bytes)) or not hasattr(ops, "__len__"):
        raise TypeError(f"{fn}: ops must be a list of Pauli words, got "
                        f"{type(ops).__name__}")
    if isinstance(coeffs, (str, bytes)) or not hasattr(coeffs, "__len__"):
        raise TypeError(f"{fn}: coeffs must be a list of numbers, got "
                        f"{type(coeffs).__name__}")
    if len(ops) != len(coeffs) or not ops:
        raise ValueError(f"{fn}: ops and coeffs must have the same non-zero "
                         f"length, got {len(ops)} and {len(coeffs)}")
    for i, w in enumerate(ops):
        if not isinstance(w, str):
            raise TypeError(f"{fn}: ops[{i}] must be a Pauli word (str), got "
                            f"{type(w).__name__}")
    for i, c in enumerate(coeffs):
        if isinstance(c, bool) or not isinstance(c, numbers.Real):
            raise TypeError(f"{fn}: coeffs[{i}] must be a real number, got "
                            f"{type(c).__name__}")
    if not isinstance(circuit_params, dict):
        raise TypeError(f"{fn}: circuit_params must be the dict from "
                        "profile_hamiltonian_build, got "
                        f"{type(circuit_params).__name__}")
    for k in ("n_estimation_wires", "n_trotter"):
        if k not in circuit_params:
            raise ValueError(f"{fn}: circuit_params lacks {k!r}")
    n = len(ops[0])
    try:
        hf = [int(x) for x in hf_state]
    except TypeError:
        raise TypeError(f"{fn}: hf_state must be a sequence of 0/1, got "
                        f"{type(hf_state).__name__}") from None
    if len(hf) != n or any(x not in (0, 1) for x in hf):
        raise ValueError(f"{fn}: hf_state must hold {n} entries of 0/1 (one "
                         f"per qubit), got {hf}")
    return hf


def _compile(fn, mode, ops, coeffs, hf_state, circuit_params, ir_dir,
             keep_intermediate):
    """Phase B in either mode: the program is built from exactly the given
    words and coefficients (through a qubit-Hamiltonian JSON file, the
    format q2-qpe reads), then compiled with a timeline around it."""
    hf = _check_inputs(fn, ops, coeffs, hf_state, circuit_params)
    check_bool(fn, "keep_intermediate", keep_intermediate)
    if ir_dir is not None and not isinstance(ir_dir, (str, os.PathLike)):
        raise TypeError(f"{fn}: ir_dir must be a path or None, got "
                        f"{type(ir_dir).__name__}")
    n_est = check_int(fn, "circuit_params['n_estimation_wires']",
                      circuit_params["n_estimation_wires"], 1)
    n_trotter = check_int(fn, "circuit_params['n_trotter']",
                          circuit_params["n_trotter"], 1)
    import q2
    name = str(circuit_params.get("molecule") or "qpe")
    ham = {"name": name, "n_qubits": len(ops[0]), "hf_state": hf,
           "terms": [[w, float(c)] for w, c in zip(ops, coeffs)]}
    with tempfile.TemporaryDirectory(prefix="q2-phase-b-") as tmp:
        path = os.path.join(tmp, f"{name}.json")
        with open(path, "w") as f:
            json.dump(ham, f)
        _memory._reset_heap_peak()
        t0 = time.perf_counter()
        with MemoryTimeline(TIMELINE_INTERVAL_S) as tl:
            if keep_intermediate:
                with ir_output_dir(ir_dir) as d:
                    res = q2.compile(path, n_est=n_est, n_trotter=n_trotter,
                                     mode=mode, profile=True)
                    ir = analyze_ir_stages(res)  # before a temp dir goes
                    if ir_dir is None:
                        res.ir_dir = None
            else:
                res = q2.compile(path, n_est=n_est, n_trotter=n_trotter,
                                 mode=mode, profile=True)
                ir = analyze_ir_stages(res)
        elapsed = time.perf_counter() - t0
    snap = take_snapshot(f"phase_b_{mode}")
    snap.elapsed_s = elapsed
    snap.heap_peak_mb = max(tl.heap_peak_mb, snap.heap_in_use_mb)
    snap.stages = _stage_rows(res, tl)
    return snap, tl, ir, res


def _stage_rows(res, tl):
    rows = []
    for st in res.stages:
        # Phase A of the compile (building the program from the terms'
        # JSON) is not Phase B; profile_hamiltonian_build measures Phase A.
        if st.name in ("Hamiltonian", "Program"):
            continue
        heap_b = st.begin.get("heap")
        heap_e = st.end.get("heap")
        bounds = [h.heap_in_use_bytes / MB for h in (heap_b, heap_e) if h]
        sampled = tl.heap_peak_between(st.begin.unix_time_s,
                                       st.end.unix_time_s)
        ir = st.get("ir")
        rows.append({
            "name": st.name, "wall_s": st.wall_s,
            "peak_rss_mb": st.peak_rss_bytes / MB,
            "peak_source": st.peak_source,
            "heap_after_mb": st.heap_after_bytes / MB,
            # Exact at the stage's ends, sampled in between.
            "heap_peak_mb": max(bounds + ([sampled] if sampled else [])),
            "ir_kb": ir.bytes / 1e3 if ir else None,
            "ir_lines": int(ir.lines) if ir else None,
        })
    return rows


def profile_qjit_compilation(ops, coeffs, hf_state, circuit_params,
                             ir_dir=None, keep_intermediate=True):
    """Phase B, dynamic mode: the compiled function takes the coefficients
    at run time. ``ir_dir``: where every stage's IR is kept (a temporary
    directory, removed after the analysis, when None); ``keep_intermediate``
    False writes no IR files (the analysis comes from the profile's IR
    figures). Returns (snapshot, timeline, ir_analysis, compiled_fn)."""
    return _compile("profile_qjit_compilation", "dynamic", ops, coeffs,
                    hf_state, circuit_params, ir_dir, keep_intermediate)


def profile_qjit_compilation_fixed(ops, coeffs, hf_state, circuit_params,
                                   ir_dir=None, keep_intermediate=True):
    """Phase B, fixed mode: the coefficients are constants of the program;
    the compiled function takes no argument. Returns (snapshot, timeline,
    ir_analysis, compiled_fn)."""
    return _compile("profile_qjit_compilation_fixed", "fixed", ops, coeffs,
                    hf_state, circuit_params, ir_dir, keep_intermediate)


def _execute(compiled_fn, coeffs, n_calls, is_fixed, fn="profile_execution"):
    if not callable(compiled_fn):
        raise TypeError(f"{fn}: compiled_fn must be callable, got "
                        f"{type(compiled_fn).__name__}")
    n_calls = check_int(fn, "n_calls", n_calls, 1)
    check_bool(fn, "is_fixed", is_fixed)
    if not is_fixed and (isinstance(coeffs, (str, bytes)) or
                         not hasattr(coeffs, "__len__")):
        raise TypeError(f"{fn}: coeffs must be a sequence of numbers, got "
                        f"{type(coeffs).__name__}")
    _memory._reset_heap_peak()
    t0 = time.perf_counter()
    with MemoryTimeline(0.01) as tl:
        for _ in range(n_calls):
            out = compiled_fn() if is_fixed else compiled_fn(coeffs)
    elapsed = time.perf_counter() - t0
    probs, energy = out if isinstance(out, tuple) else (out, None)
    import numpy as np
    prob_sum = float(np.sum(probs))
    snap = take_snapshot("phase_c")
    snap.elapsed_s = elapsed
    snap.heap_peak_mb = max(tl.heap_peak_mb, snap.heap_in_use_mb)
    return snap, prob_sum, (None if energy is None else float(energy))


def profile_execution(compiled_fn, coeffs, n_calls=5, is_fixed=False):
    """Phase C: ``n_calls`` calls of the compiled circuit (``fn()`` when
    is_fixed, else ``fn(coeffs)``). Returns (snapshot, prob_sum of the last
    call's probabilities)."""
    snap, prob_sum, _ = _execute(compiled_fn, coeffs, n_calls, is_fixed)
    return snap, prob_sum
