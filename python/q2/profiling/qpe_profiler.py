"""The three profiled phases of a QPE compile, with q2m3's signatures, run
by q2's own pipeline in this process (the name "qjit" is kept for drop-in
use; nothing of Catalyst is involved):

    A  profile_hamiltonian_build   molecule -> Pauli words, coefficients and
                                   the QPE plan (q2's FCIDUMP reader,
                                   Jordan-Wigner and planner; psi4 for a
                                   molecule that is not bundled)
    B  profile_qjit_compilation[_fixed]
                                   the six stages (q2.compile, profiled),
                                   with a MemoryTimeline around them
    C  profile_execution           calls of the compiled circuit

Each returns q2m3's tuple, with q2m3's meanings: a phase's snapshot has
``rss_mb`` and ``tracemalloc_current_mb`` as the change over the phase
(``rss_after_mb``, ``tracemalloc_after_mb``: the values at its end), and
the peaks (``tracemalloc_peak_mb``, ``maxrss_mb``, ``vm_peak_mb``) as read
at its end; tracemalloc's peak is reset when a phase starts. Phase B's
snapshot also has per-stage figures in ``snapshot.stages``. The compiled
function returns the probabilities, as q2m3's does (``fn(coeffs)`` dynamic,
``fn()`` fixed); ``fn(..., with_energy=True)`` returns (probabilities,
energy) and ``fn.result`` is the ``q2.CompileResult`` (report, stages, ...).

Profiling does not disturb the process: the stage peaks are sampled (the
kernel's VmHWM, and so ru_maxrss, is never reset), see docs/python.md.
"""
import json
import numbers
import os
import tempfile
import time
import tracemalloc

from . import memory as _memory
from .._args import check_bool, check_int
from .ir import COMPILATION_STAGES, analyze_ir_stages, ir_output_dir
from .memory import MB, MemoryTimeline, take_snapshot
from .molecules import molecule_arg, psi4_result, resolve

__all__ = ["profile_hamiltonian_build", "profile_qjit_compilation",
           "profile_qjit_compilation_fixed", "profile_execution",
           "CompiledQPE"]

#: MemoryTimeline interval of Phase B (q2's compiles take milliseconds).
TIMELINE_INTERVAL_S = 0.005


def _begin():
    """A phase starts: tracemalloc's peak and the sampled C/C++ heap peak
    are reset (q2m3: tracemalloc.reset_peak()); the 'before' snapshot."""
    tracemalloc.reset_peak()
    _memory._reset_heap_peak()
    return take_snapshot("before")


def _phase_snapshot(label, before, elapsed):
    """q2m3's phase snapshot: RSS and traced memory as the change since
    ``before``, peaks at the end; q2's absolute figures beside."""
    after = take_snapshot(label)
    after.elapsed_s = elapsed
    after.rss_mb = after.rss_after_mb - before.rss_after_mb
    after.tracemalloc_current_mb = (after.tracemalloc_after_mb -
                                    before.tracemalloc_after_mb)
    return after


def profile_hamiltonian_build(mol, n_est, n_trotter):
    """Phase A: the molecule's qubit Hamiltonian (FCIDUMP -> Jordan-Wigner,
    in q2's C++ library; psi4 first for a molecule that is not bundled) and
    the QPE plan for (n_est, n_trotter). Returns (snapshot, ops, coeffs,
    hf_state, circuit_params): Pauli words ("XXYY", qubit 0 leftmost),
    their coefficients, the Hartree-Fock occupation (NumPy int array) and
    the circuit's parameters (q2m3's keys: n_system_qubits,
    n_estimation_wires, n_trotter, n_terms, base_time, energy_shift,
    hf_state, base_coeffs, op_index_map; and q2's: molecule, hamiltonian,
    hamiltonian_source, n_electrons, ms2, resolution, hf_energy,
    exact_energy, psi4). ``mol``: a MoleculeConfig or a MOLECULES key."""
    fn = "profile_hamiltonian_build"
    mol = molecule_arg(fn, mol)
    n_est = check_int(fn, "n_est", n_est, 1)
    n_trotter = check_int(fn, "n_trotter", n_trotter, 1)
    resolve(mol, build=False)        # refusals before anything is written
    return _hamiltonian_build(mol.name, lambda: resolve(mol), n_est,
                              n_trotter)


def _hamiltonian_build(name, locate, n_est, n_trotter):
    """Phase A of the molecule ``name`` whose Hamiltonian file ``locate()``
    returns as (path, source), measured."""
    import numpy as np
    import q2
    before = _begin()
    t0 = time.monotonic()
    path, source = locate()
    h = q2._q2.qubit_hamiltonian(path, {"n_est": n_est,
                                        "n_trotter": n_trotter})
    ops = [w for w, _ in h["terms"]]
    coeffs = [float(c) for _, c in h["terms"]]
    hf_state = np.array(h["hf_state"], dtype=int)
    elapsed = time.monotonic() - t0
    snap = _phase_snapshot("Phase A: Hamiltonian Build", before, elapsed)
    plan = h["plan"]
    identity = next((i for i, w in enumerate(ops) if set(w) <= {"I"}), None)
    params = {
        "n_system_qubits": int(h["n_qubits"]),
        "n_estimation_wires": n_est, "n_trotter": n_trotter,
        "n_terms": len(ops),
        "base_time": plan["base_time"], "energy_shift": plan["energy_shift"],
        "hf_state": hf_state,
        "base_coeffs": np.array(coeffs, dtype=np.float64),
        "op_index_map": {"identity_idx": identity},
        # q2's
        "molecule": name, "hamiltonian": path,
        "hamiltonian_source": source,
        "n_electrons": int(h["n_electrons"]), "ms2": int(h["ms2"]),
        "resolution": plan["resolution"], "hf_energy": plan["hf_energy"],
        "exact_energy": plan["exact_energy"], "psi4": psi4_result(path),
    }
    return snap, ops, coeffs, hf_state, params


def _check_inputs(fn, ops, coeffs, hf_state, circuit_params):
    if isinstance(ops, (str, bytes)) or not hasattr(ops, "__len__"):
        raise TypeError(f"{fn}: ops must be a list of Pauli words, got "
                        f"{type(ops).__name__}")
    if isinstance(coeffs, (str, bytes)) or not hasattr(coeffs, "__len__"):
        raise TypeError(f"{fn}: coeffs must be a list of numbers, got "
                        f"{type(coeffs).__name__}")
    if len(ops) != len(coeffs) or not len(ops):
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


class CompiledQPE:
    """The compiled function of profile_qjit_compilation[_fixed]. Called as
    q2m3's (``fn(coeffs)`` for a dynamic program, ``fn()`` for a fixed one)
    it returns the probabilities of the estimation register (a NumPy array
    of 2^n_est floats). Beside that:

    - ``fn(..., with_energy=True)`` returns (probabilities, energy), the
      energy a ``q2.Energy`` decoded from them; ``last_energy`` is the last
      call's;
    - ``mode``: "fixed" or "dynamic";
    - ``result``: the ``q2.CompileResult`` (report, stages, metadata,
      circuit, object, compile_s, stage_table(), ...), whose attributes are
      also this object's (``fn.report``, ``fn.stages``, ...)."""

    def __init__(self, result, mode):
        self.result = result
        self.mode = mode
        self.last_energy = None

    def __call__(self, *coeffs, with_energy=False, out=None):
        if self.mode == "fixed":
            if coeffs:
                raise TypeError(
                    "the compiled function of a fixed-mode program takes no "
                    "arguments (its coefficients are constants of the "
                    "program; compile with profile_qjit_compilation to pass "
                    "coefficients)")
            probs, energy = self.result(None, out)
        else:
            if len(coeffs) != 1:
                raise TypeError(
                    "the compiled function of a dynamic-mode program takes "
                    f"the coefficients (1 argument), got {len(coeffs)}")
            probs, energy = self.result(coeffs[0], out)
        self.last_energy = energy
        return (probs, energy) if with_energy else probs

    def __getattr__(self, name):
        if name == "result":  # before __init__ (copy, pickle)
            raise AttributeError(name)
        return getattr(self.result, name)

    def __repr__(self):
        md = self.result.metadata
        return (f"<CompiledQPE {self.mode} {md.get('molecule', '')} "
                f"n_est={md.n_est} n_terms={md.n_terms}>")


def _compile(fn, mode, label, ops, coeffs, hf_state, circuit_params, ir_dir,
             keep_intermediate):
    """Phase B in either mode: the program is built from exactly the given
    words and coefficients (through a qubit-Hamiltonian JSON file, the
    format q2-qpe reads) with Phase A's plan (base_time, energy_shift), then
    compiled with a timeline around it."""
    hf = _check_inputs(fn, ops, coeffs, hf_state, circuit_params)
    check_bool(fn, "keep_intermediate", keep_intermediate)
    if ir_dir is not None and not isinstance(ir_dir, (str, os.PathLike)):
        raise TypeError(f"{fn}: ir_dir must be a path or None, got "
                        f"{type(ir_dir).__name__}")
    n_est = check_int(fn, "circuit_params['n_estimation_wires']",
                      circuit_params["n_estimation_wires"], 1)
    n_trotter = check_int(fn, "circuit_params['n_trotter']",
                          circuit_params["n_trotter"], 1)
    plan = {k: float(circuit_params[k]) for k in ("base_time", "energy_shift")
            if circuit_params.get(k) is not None}
    import q2
    name = str(circuit_params.get("molecule") or "qpe")
    ham = {"name": name, "n_qubits": len(ops[0]), "hf_state": hf,
           "terms": [[w, float(c)] for w, c in zip(ops, coeffs)]}
    with tempfile.TemporaryDirectory(prefix="q2-phase-b-") as tmp:
        path = os.path.join(tmp, "hamiltonian.json")
        with open(path, "w") as f:
            json.dump(ham, f)

        def build():
            return q2.compile(path, n_est=n_est, n_trotter=n_trotter,
                              mode=mode, profile=True, **plan)
        before = _begin()
        with MemoryTimeline(TIMELINE_INTERVAL_S) as tl:
            t0 = time.monotonic()
            if keep_intermediate:
                # Every stage's IR in files, analysed before a temporary
                # directory goes.
                with ir_output_dir(ir_dir):
                    res = build()
                    ir = analyze_ir_stages(res)
                if ir_dir is None:
                    res.ir_dir = None
            else:
                # Only the final stage is kept: nothing is written (also
                # inside an ir_output_dir block), and the analysis has the
                # object alone (per-stage figures stay in snapshot.stages).
                token = q2._ir_scope.set(None)
                try:
                    res = build()
                finally:
                    q2._ir_scope.reset(token)
                ir = analyze_ir_stages(res, stages=COMPILATION_STAGES[-1:])
            elapsed = time.monotonic() - t0
    snap = _phase_snapshot(label, before, elapsed)
    snap.heap_peak_mb = max(tl.heap_peak_mb, snap.heap_in_use_mb)
    snap.stages = _stage_rows(res, tl)
    return snap, tl, ir, CompiledQPE(res, mode)


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
    False keeps only the final stage: no IR files, and ``ir_analysis`` has
    the object code alone. Returns (snapshot, timeline, ir_analysis,
    compiled_fn)."""
    return _compile("profile_qjit_compilation", "dynamic",
                    "Phase B: @qjit Compilation", ops, coeffs, hf_state,
                    circuit_params, ir_dir, keep_intermediate)


def profile_qjit_compilation_fixed(ops, coeffs, hf_state, circuit_params,
                                   ir_dir=None, keep_intermediate=True):
    """Phase B, fixed mode: the coefficients are constants of the program;
    the compiled function takes no argument. Returns (snapshot, timeline,
    ir_analysis, compiled_fn)."""
    return _compile("profile_qjit_compilation_fixed", "fixed",
                    "Phase B: @qjit Compilation (H_fixed)", ops, coeffs,
                    hf_state, circuit_params, ir_dir, keep_intermediate)


def _mode_of(compiled_fn):
    """'fixed'/'dynamic' for q2's compiled functions, None for others."""
    mode = getattr(compiled_fn, "mode", None)
    if mode in ("fixed", "dynamic"):
        return mode
    md = getattr(compiled_fn, "metadata", None)
    mode = getattr(md, "mode", None) if md is not None else None
    return mode if mode in ("fixed", "dynamic") else None


def _execute(compiled_fn, coeffs, n_calls, is_fixed, fn="profile_execution"):
    if not callable(compiled_fn):
        raise TypeError(f"{fn}: compiled_fn must be callable, got "
                        f"{type(compiled_fn).__name__}")
    n_calls = check_int(fn, "n_calls", n_calls, 1)
    check_bool(fn, "is_fixed", is_fixed)
    mode = _mode_of(compiled_fn)
    if mode is not None and (mode == "fixed") != is_fixed:
        raise ValueError(
            f"{fn}: is_fixed={is_fixed} but compiled_fn is a {mode}-mode "
            f"program (is_fixed={mode == 'fixed'}): "
            + ("it takes no coefficients" if mode == "fixed" else
               "it takes the coefficients; calling it without them would run "
               "the compiled defaults"))
    import numpy as np
    if not is_fixed:
        if isinstance(coeffs, (str, bytes)) or not hasattr(coeffs, "__len__"):
            raise TypeError(f"{fn}: coeffs must be a sequence of numbers, got "
                            f"{type(coeffs).__name__}")
        coeffs = np.array(coeffs, dtype=np.float64)
    before = _begin()
    t0 = time.monotonic()
    out = None
    with MemoryTimeline(0.01) as tl:
        for _ in range(n_calls):
            out = compiled_fn() if is_fixed else compiled_fn(coeffs)
    elapsed = time.monotonic() - t0
    energy = None
    if isinstance(out, tuple):          # q2.CompileResult: (probs, energy)
        out, energy = out
    elif isinstance(compiled_fn, CompiledQPE):
        energy = compiled_fn.last_energy
    prob_sum = float(np.sum(out)) if out is not None else 0.0
    snap = _phase_snapshot(f"Phase C: Execution ({n_calls}x)", before,
                           elapsed)
    snap.heap_peak_mb = max(tl.heap_peak_mb, snap.heap_in_use_mb)
    return snap, prob_sum, (None if energy is None else float(energy))


def profile_execution(compiled_fn, coeffs, n_calls=5, is_fixed=False):
    """Phase C: ``n_calls`` calls of the compiled circuit (``fn()`` when
    is_fixed, else ``fn(coeffs)``). Returns (snapshot, prob_sum of the last
    call's probabilities). ``is_fixed`` must match q2's compiled function
    (ValueError: a dynamic program called without coefficients would run
    its compiled defaults)."""
    snap, prob_sum, _ = _execute(compiled_fn, coeffs, n_calls, is_fixed)
    return snap, prob_sum
