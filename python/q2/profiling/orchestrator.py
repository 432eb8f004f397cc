"""Isolated runs and sweeps with q2m3's signatures, run by q2's sweep
engine (the C++ orchestrator of ``q2-profile run``/``sweep``, the one of
``q2.run_sweep``: budgets, the process-tree monitor, point records,
progress, one timeout).

Each point is q2m3's: one mode of one (molecule, n_est, n_trotter) in a
fresh Python process that runs the three phases in itself with tracemalloc
on (``q2.profiling._point``, Phase B+C of the point; Phase A of the record
is q2-qpe building the same program). The child's ProfileResult comes back
through the point's directory; ``parent_data`` is what the engine saw from
outside (peak tree RSS, the kernel's VmHWM, ...).

Every function reports progress only through ``on_progress(str)``; nothing
is printed (the children's output goes to their evidence files).

Beyond q2m3: ``to_dataframe(results)``, ``summary_csv(results)`` and
``write_summary_csv(results, path)`` give one row per point with prob_sum,
energy and its error, IR KB/lines per stage, compile and timeline peaks;
``out_dir=`` keeps the sweep's directories (``q2-profile``'s layout, so a
rerun resumes); ``mol_key`` may be a MoleculeConfig.
"""
import json
import logging
import os
import tempfile
import time
import traceback

from .._args import check_callback, check_int, check_mode, check_str
from .memory import MB, ProfileResult, MemorySnapshot
from .molecules import MOLECULES, MoleculeConfig, molecule_arg, resolve

__all__ = ["MOLECULES", "MoleculeConfig", "H2_SWEEP_GRID",
           "run_single_profile", "run_single_profile_in_subprocess",
           "run_both_modes", "run_sweep", "to_dataframe", "summary_csv",
           "write_summary_csv"]

log = logging.getLogger(__name__)


def __getattr__(name):
    # The one H2 grid is the sweep engine's (SweepSpec): read on first use,
    # so that importing this module loads no compiler.
    if name == "H2_SWEEP_GRID":
        import q2
        grid = [tuple(p) for p in q2._q2.default_h2_grid()]
        globals()[name] = grid
        return grid
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _progress(cb, msg):
    if cb is not None:
        cb(msg)


def _failed(name, n_system, n_est, n_trotter, mode, error):
    return ProfileResult(molecule=name, n_system_qubits=n_system,
                         n_estimation_wires=n_est, n_trotter=n_trotter,
                         n_terms=0, ir_scale=0, mode=mode, error=error,
                         pid=os.getpid())


# ---------------------------------------------------------------------------
# One point in this process
# ---------------------------------------------------------------------------

def _profile(mol_name, n_system, mode, n_est, n_trotter, a, ir_dir, n_calls,
             on_progress):
    """Phases B and C of one mode after Phase A (``a``); a failure is a
    result with ``error``."""
    from . import qpe_profiler as qp
    snap_a, ops, coeffs, hf_state, params = a
    t0 = time.perf_counter()
    tag = f"{mol_name} ({n_est},{n_trotter}) {mode}"
    try:
        _progress(on_progress, f"{tag}: phase B (compile)")
        prof = qp.profile_qjit_compilation_fixed if mode == "fixed" \
            else qp.profile_qjit_compilation
        snap_b, tl, ir, fn = prof(ops, coeffs, hf_state, params,
                                  ir_dir=ir_dir)
        _progress(on_progress, f"{tag}: phase C (execute)")
        snap_c, prob_sum, energy = qp._execute(fn, coeffs, n_calls,
                                               mode == "fixed")
    except Exception as e:  # the point fails, the caller goes on
        log.debug("%s failed", tag, exc_info=True)
        r = _failed(mol_name, n_system, n_est, n_trotter, mode,
                    f"{type(e).__name__}: {e}")
        r.phase_a = snap_a
        return r, None, None
    p = fn.report.parameters
    exact = fn.metadata.get("exact_energy")
    r = ProfileResult(
        molecule=mol_name, n_system_qubits=int(p.n_system),
        n_estimation_wires=int(p.n_est),
        n_trotter=int(p.n_trotter), n_terms=int(p.n_terms),
        ir_scale=int(p.ir_scale), mode=mode, phase_a=snap_a, phase_b=snap_b,
        phase_c=snap_c, timeline_peak_mb=tl.peak_rss_mb,
        timeline_samples=list(tl.samples), ir_analysis=ir, prob_sum=prob_sum,
        energy=energy, exact_energy=exact,
        energy_error=(abs(energy - exact) if energy is not None and
                      exact is not None else None),
        compile_s=fn.compile_s or 0.0,
        compile_peak_mb=(fn.compile_peak_rss or 0) / MB,
        heap_peak_mb=max(snap_a.heap_peak_mb, snap_b.heap_peak_mb,
                         snap_c.heap_peak_mb),
        wall_s=snap_a.elapsed_s + time.perf_counter() - t0, pid=os.getpid())
    _progress(on_progress, f"{tag}: done, compile {r.compile_s:.3f} s, "
              f"prob_sum {prob_sum:.6f}")
    return r, fn, tl


def _run_point(mol_name, n_system, locate, n_est, n_trotter, modes, ir_dir,
               n_calls, on_progress):
    """Phase A once (the Hamiltonian file from ``locate()``), then B and C
    per mode, in this process. Returns [(result, compiled_fn or None,
    timeline or None)] per mode."""
    from . import qpe_profiler as qp
    _progress(on_progress, f"{mol_name} ({n_est},{n_trotter}): phase A "
              "(Hamiltonian)")
    try:
        a = qp._hamiltonian_build(mol_name, locate, n_est, n_trotter)
    except Exception as e:
        return [(_failed(mol_name, n_system, n_est, n_trotter, m,
                         f"{type(e).__name__}: {e}"), None, None)
                for m in modes]
    return [_profile(mol_name, n_system, m, n_est, n_trotter, a, ir_dir,
                     n_calls, on_progress) for m in modes]


def _ir_dir_arg(fn, ir_dir):
    if ir_dir is not None and not isinstance(ir_dir, (str, os.PathLike)):
        raise TypeError(f"{fn}: ir_dir must be a path or None, got "
                        f"{type(ir_dir).__name__}")
    return os.fspath(ir_dir) if ir_dir is not None else None


def run_single_profile(mol, n_est, n_trotter, mode="both", ir_dir=None,
                       on_progress=None):
    """All three phases for one point in this process (Phase A once for
    both modes). Returns a ProfileResult, or (fixed, dynamic) for
    mode="both". A failing phase gives a result with ``error`` set; a
    molecule that needs psi4 where it is missing is a Psi4NotFoundError,
    raised before anything happens (psi4's own summary goes to
    on_progress)."""
    fn = "run_single_profile"
    mol = molecule_arg(fn, mol)
    n_est = check_int(fn, "n_est", n_est, 1)
    n_trotter = check_int(fn, "n_trotter", n_trotter, 1)
    check_mode(fn, mode, allow_both=True)
    check_callback(fn, "on_progress", on_progress)
    ir_dir = _ir_dir_arg(fn, ir_dir)
    resolve(mol, build=False)        # refusals before anything is written
    modes = ["fixed", "dynamic"] if mode == "both" else [mode]
    out = [r for r, _, _ in _run_point(
        mol.name, mol.n_system_qubits, lambda: resolve(mol, on_progress),
        n_est, n_trotter, modes, ir_dir, 5, on_progress)]
    return tuple(out) if mode == "both" else out[0]


def run_single_profile_in_subprocess(mol_key, n_est, n_trotter, queue,
                                     mode="dynamic", ir_dir=None):
    """The target of a process of the caller's (q2m3's): profiles the point
    in this (child) process with tracemalloc on and puts the result (a
    ProfileResult, or the (fixed, dynamic) pair for mode="both") on
    ``queue``; an exception becomes a result with ``error`` set. Works with
    every start method, spawn included."""
    import tracemalloc
    fn = "run_single_profile_in_subprocess"
    check_str(fn, "mol_key", mol_key)
    if not hasattr(queue, "put"):
        raise TypeError(f"{fn}: queue must be a multiprocessing queue, got "
                        f"{type(queue).__name__}")
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    try:
        r = run_single_profile(mol_key, n_est, n_trotter, mode=mode,
                               ir_dir=ir_dir)
    except Exception as e:
        err = f"{type(e).__name__}: {e}\n{traceback.format_exc()}"
        modes = ["fixed", "dynamic"] if mode == "both" else [mode]
        out = [_failed(str(mol_key), 0,
                       n_est if isinstance(n_est, int) else 0,
                       n_trotter if isinstance(n_trotter, int) else 0,
                       str(m), err) for m in modes]
        r = tuple(out) if mode == "both" else out[0]
    finally:
        if started:
            tracemalloc.stop()
    queue.put(r)


# ---------------------------------------------------------------------------
# Isolated points: the sweep engine runs a Python child per point
# ---------------------------------------------------------------------------

#: The point's child: q2.profiling._point, from this package's location.
_CHILD = ("import sys; sys.path.insert(0, sys.argv[1]); "
          "from q2.profiling._point import main; sys.exit(main(sys.argv[2:]))")
#: What the child leaves in its point directory.
RESULT_FILE = "profile.json"


def _python():
    """The interpreter of the children: multiprocessing's (the caller may
    have set another one with multiprocessing.set_executable)."""
    import multiprocessing.spawn
    return multiprocessing.spawn.get_executable()


def _machine_mb():
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / MB


def _mol_key_arg(fn, mol_key):
    """A MOLECULES key (q2m3) or a MoleculeConfig (q2)."""
    if isinstance(mol_key, MoleculeConfig):
        return mol_key
    check_str(fn, "mol_key", mol_key)
    return molecule_arg(fn, mol_key, "mol_key")


def _event_text(mol, e):
    head = f"[{e.done}/{e.total}] {mol} ({e.n_est},{e.n_trotter}) {e.mode}"
    if e.kind == "started":
        return f"{head}: started"
    if e.kind == "skipped":
        return f"{head}: done before ({e.status})"
    return f"{head}: {e.status} after {e.elapsed_s:.1f} s"


def _snapshot(d):
    return None if d is None else MemorySnapshot(**d)


def _result_from_dict(d):
    d = dict(d)
    for k in ("phase_a", "phase_b", "phase_c"):
        d[k] = _snapshot(d.get(k))
    d["timeline_samples"] = [tuple(s) for s in d.get("timeline_samples", [])]
    d["ir_analysis"] = [tuple(s) for s in d.get("ir_analysis", [])]
    return ProfileResult(**d)


def _stderr_tail(point_dir, phase, n=5):
    try:
        with open(os.path.join(point_dir, phase, "stderr.txt")) as f:
            lines = [x for x in f.read().splitlines() if x.strip()]
    except OSError:
        return ""
    return "\n".join(lines[-n:])


def _collect(point, mol, out_dir):
    """(ProfileResult, parent_data) of one finished point."""
    point_dir = os.path.join(out_dir, "points", point.key)
    bc = point.phases.get("BC")
    data = {"peak_rss_mb": point.peak_rss_mb,
            "peak_hwm_mb": bc.max_vmhwm_mb if bc else 0.0,
            "peak_smaps": {}, "n_samples": bc.polls if bc else 0,
            "exit_code": bc.exit_code if bc else None,
            "wall_s": point.wall_s, "status": point.status,
            "reason": point.reason, "exited": True,
            "point_dir": point_dir}
    try:
        with open(os.path.join(point_dir, RESULT_FILE)) as f:
            saved = json.load(f)
    except (OSError, ValueError):
        saved = None
    if saved is None:
        # The child left no result (killed at a budget, or Phase A's q2-qpe
        # refused the point): the record says why, the phase's stderr how.
        phase = point.failed_phase or "BC"
        tail = _stderr_tail(point_dir, phase)
        r = _failed(mol.name, mol.n_system_qubits, point.n_est,
                    point.n_trotter, point.mode,
                    f"phase {phase}: {point.reason}"
                    + (f" ({point.message})" if point.message else "")
                    + (f"\n{tail}" if tail else ""))
        return r, data
    data["peak_smaps"] = saved.get("peak_smaps") or {}
    r = _result_from_dict(saved["result"])
    if r.error is None and point.status != "ok":
        r.error = f"{point.reason}: {point.message or ''}".rstrip(": ")
    return r, data


def _isolated(mol, grid, modes, ir_dir, on_progress, out_dir):
    """Runs the points as one sweep of the engine; returns [(result,
    parent_data)] in the sweep's order (grid, then mode)."""
    import q2
    located = resolve(mol, on_progress)   # psi4 before anything else
    path = located[0]
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    child = [_python(), "-c", _CHILD, root, "--molecule", mol.name,
             "--hamiltonian", path, "--source", located[1],
             "--n-system", str(mol.n_system_qubits), "--mode", "{mode}",
             "--n-est", "{n_est}", "--n-trotter", "{n_trotter}",
             "--runs", "{runs}", "--report", "{report}",
             "--out", os.path.join("{point_dir}", RESULT_FILE)]
    if ir_dir is not None:
        child += ["--ir-dir", os.path.abspath(ir_dir)]
    tmp = None
    if out_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="q2-profiling-")
        out_dir = tmp.name
    try:
        options = q2._q2.SweepOptions(
            out_dir=os.fspath(out_dir), molecules=[(mol.name, path, 0)],
            grid=grid, modes=modes, rss_mb=_machine_mb(),
            vars=q2._vars(), commands={"BC": child})
        cb = None if on_progress is None else \
            (lambda e: on_progress(_event_text(mol.name, e)))
        sweep = q2._q2.run_sweep(options, cb)
        return [_collect(p, mol, options.out_dir) for p in sweep]
    finally:
        if tmp is not None:
            tmp.cleanup()


def _point_args(fn, mol_key, n_est, n_trotter, ir_dir, on_progress):
    mol = _mol_key_arg(fn, mol_key)
    check_int(fn, "n_est", n_est, 1)
    check_int(fn, "n_trotter", n_trotter, 1)
    check_callback(fn, "on_progress", on_progress)
    return mol, _ir_dir_arg(fn, ir_dir)


def run_both_modes(mol_key, n_est, n_trotter, ir_dir=None, on_progress=None,
                   *, out_dir=None):
    """Fixed, then dynamic mode, each in its own Python process, watched
    from here by the sweep engine. Returns (result_fixed, result_dynamic,
    parent_data_fixed, parent_data_dynamic); parent_data: peak_rss_mb (the
    tree's, sampled every 10 ms), peak_hwm_mb (the kernel's VmHWM),
    peak_smaps (smaps_rollup at the child's RSS peak), n_samples, and q2's
    exit_code, wall_s, status, reason, point_dir. ``out_dir``: keep the
    points' directories there (else a temporary directory)."""
    mol, ir_dir = _point_args("run_both_modes", mol_key, n_est, n_trotter,
                              ir_dir, on_progress)
    (rf, df), (rd, dd) = _isolated(mol, [(n_est, n_trotter)],
                                   ["fixed", "dynamic"], ir_dir, on_progress,
                                   out_dir)
    return rf, rd, df, dd


def _grid_arg(fn, grid):
    if grid is None:
        return list(__getattr__("H2_SWEEP_GRID"))
    if isinstance(grid, (str, bytes)):
        raise TypeError(f"{fn}: grid must be a list of (n_est, n_trotter) "
                        f"pairs, not a str ({grid!r})")
    out = []
    for i, pt in enumerate(grid):
        try:
            e, t = pt
        except (TypeError, ValueError):
            raise TypeError(f"{fn}: grid[{i}] must be an (n_est, n_trotter) "
                            f"pair, got {pt!r}") from None
        out.append((check_int(fn, f"grid[{i}][0]", e, 1),
                    check_int(fn, f"grid[{i}][1]", t, 1)))
    if not out:
        raise ValueError(f"{fn}: grid is empty")
    return out


def run_sweep(mol_key="h2", mode="dynamic", grid=None, on_progress=None, *,
              out_dir=None):
    """Every grid point in its own Python process, one after the other.
    Returns {(n_est, n_trotter): ProfileResult} of the points that
    succeeded (each with ``parent_data``); a failed point is logged
    (warning) and left out. ``out_dir``: keep the sweep's directories there
    (a rerun skips the points done)."""
    fn = "run_sweep"
    mol = _mol_key_arg(fn, mol_key)
    check_mode(fn, mode)
    pts = _grid_arg(fn, grid)
    check_callback(fn, "on_progress", on_progress)
    results = {}
    for r, data in _isolated(mol, pts, [mode], None, on_progress,
                             out_dir):
        key = (r.n_estimation_wires, r.n_trotter)
        if r.error is not None:
            log.warning("run_sweep: %s (%d,%d) %s failed: %s", mol.name,
                        key[0], key[1], mode, r.error.splitlines()[0])
            continue
        r.parent_data = data
        results[key] = r
    return results


# ---------------------------------------------------------------------------
# One row per point
# ---------------------------------------------------------------------------

def _results_list(results):
    if isinstance(results, ProfileResult):
        return [results]
    if isinstance(results, dict):
        results = results.values()
    out = []
    for r in results:
        if isinstance(r, tuple):
            out.extend(x for x in r if isinstance(x, ProfileResult))
        elif isinstance(r, ProfileResult):
            out.append(r)
        else:
            raise TypeError("results must be ProfileResults (a list, the "
                            "dict of run_sweep, or tuples), got "
                            f"{type(r).__name__}")
    return out


def _rows(results):
    rows = []
    for r in _results_list(results):
        row = r.to_row()
        pd_ = getattr(r, "parent_data", None)
        row["parent_peak_rss_mb"] = pd_["peak_rss_mb"] if pd_ else None
        row["parent_peak_hwm_mb"] = pd_["peak_hwm_mb"] if pd_ else None
        rows.append(row)
    return rows


def _columns(rows):
    cols = []
    for row in rows:
        for k in row:
            if k not in cols:
                cols.append(k)
    return cols


def summary_csv(results):
    """summary.csv's text: one row per point (see ProfileResult.to_row)."""
    import csv
    import io
    rows = _rows(results)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=_columns(rows), lineterminator="\n")
    w.writeheader()
    for row in rows:
        w.writerow({k: ("" if v is None else v) for k, v in row.items()})
    return buf.getvalue()


def write_summary_csv(results, path):
    """Writes summary_csv(results) atomically (temp file, then rename)."""
    path = os.fspath(path)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(summary_csv(results))
    os.replace(tmp, path)
    return path


def to_dataframe(results):
    """The rows of summary_csv as a pandas DataFrame."""
    try:
        import pandas as pd
    except ImportError as e:
        raise ImportError("to_dataframe needs pandas (Debian: "
                          "python3-pandas)") from e
    rows = _rows(results)
    return pd.DataFrame(rows, columns=_columns(rows))
