"""Isolated runs and sweeps with q2m3's signatures.

Every function reports progress only through ``on_progress(str)``; nothing
is printed. Isolated runs use the ``spawn`` start method (a fresh
interpreter per run, so ru_maxrss starts from zero and nothing is shared
with the caller's threads) and are watched from the parent by a
ParentSideMonitor.

Beyond q2m3: ``to_dataframe(results)``, ``summary_csv(results)`` and
``write_summary_csv(results, path)`` give one row per point with prob_sum,
energy and its error, IR KB/lines per stage, compile and timeline peaks.
"""
import logging
import multiprocessing
import os
import queue as _queue
import time
import traceback

from ._args import check_callback, check_int, check_mode, check_str
from .memory import MB, ParentSideMonitor, ProfileResult
from .molecules import MOLECULES, MoleculeConfig, molecule_arg

__all__ = ["MOLECULES", "MoleculeConfig", "H2_SWEEP_GRID",
           "run_single_profile", "run_single_profile_in_subprocess",
           "run_both_modes", "run_sweep", "to_dataframe", "summary_csv",
           "write_summary_csv"]

log = logging.getLogger(__name__)

#: q2m3's H2 grid of (n_est, n_trotter).
H2_SWEEP_GRID = [(2, 1), (2, 3), (2, 5), (3, 3), (3, 5), (4, 3), (4, 5),
                 (4, 10)]

#: Seconds a child may run before it is killed (a point that hangs).
CHILD_TIMEOUT_S = 900.0
#: ParentSideMonitor interval for the isolated runs.
MONITOR_INTERVAL_S = 0.01



class _Named:
    def __init__(self, name):
        self.name = name


def _progress(cb, msg):
    if cb is not None:
        cb(msg)


def _failed(mol, n_est, n_trotter, mode, error):
    return ProfileResult(molecule=mol.name,
                         n_system_qubits=getattr(mol, "n_system_qubits", 0),
                         n_estimation_wires=n_est, n_trotter=n_trotter,
                         n_terms=0, ir_scale=0, mode=mode, error=error,
                         pid=os.getpid())


def _one_mode(mol, mode, n_est, n_trotter, a, ir_dir, on_progress):
    from . import qpe_profiler as qp
    snap_a, ops, coeffs, hf_state, params = a
    t0 = time.perf_counter()
    tag = f"{mol.name} ({n_est},{n_trotter}) {mode}"
    try:
        _progress(on_progress, f"{tag}: phase B (compile)")
        prof = qp.profile_qjit_compilation_fixed if mode == "fixed" \
            else qp.profile_qjit_compilation
        snap_b, tl, ir, fn = prof(ops, coeffs, hf_state, params,
                                  ir_dir=ir_dir)
        _progress(on_progress, f"{tag}: phase C (execute)")
        snap_c, prob_sum, energy = qp._execute(fn, coeffs, 5,
                                               mode == "fixed")
    except Exception as e:  # the point fails, the caller goes on
        log.debug("%s failed", tag, exc_info=True)
        r = _failed(mol, n_est, n_trotter, mode, f"{type(e).__name__}: {e}")
        r.phase_a = snap_a
        return r
    p = fn.report.parameters
    md = fn.metadata
    exact = md.get("exact_energy")
    r = ProfileResult(
        molecule=mol.name, n_system_qubits=int(p.n_system),
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
    return r


def run_single_profile(mol, n_est, n_trotter, mode="both", ir_dir=None,
                       on_progress=None):
    """All three phases for one point in this process (Phase A once for
    both modes). Returns a ProfileResult, or (fixed, dynamic) for
    mode="both". A failing phase gives a result with ``error`` set."""
    fn = "run_single_profile"
    mol = molecule_arg(fn, mol)
    n_est = check_int(fn, "n_est", n_est, 1)
    n_trotter = check_int(fn, "n_trotter", n_trotter, 1)
    check_mode(fn, mode, allow_both=True)
    check_callback(fn, "on_progress", on_progress)
    if ir_dir is not None and not isinstance(ir_dir, (str, os.PathLike)):
        raise TypeError(f"{fn}: ir_dir must be a path or None, got "
                        f"{type(ir_dir).__name__}")
    from . import qpe_profiler as qp
    from .molecules import resolve
    # A molecule that needs psi4 is built (or refused) before anything else
    # happens; psi4's summary goes to on_progress.
    resolve(mol, on_progress)
    modes = ["fixed", "dynamic"] if mode == "both" else [mode]
    _progress(on_progress, f"{mol.name} ({n_est},{n_trotter}): phase A "
              "(Hamiltonian)")
    try:
        a = qp.profile_hamiltonian_build(mol, n_est, n_trotter)
    except Exception as e:
        out = [_failed(mol, n_est, n_trotter, m, f"{type(e).__name__}: {e}")
               for m in modes]
        return tuple(out) if mode == "both" else out[0]
    out = [_one_mode(mol, m, n_est, n_trotter, a, ir_dir, on_progress)
           for m in modes]
    return tuple(out) if mode == "both" else out[0]


def run_single_profile_in_subprocess(mol_key, n_est, n_trotter, queue,
                                     mode="dynamic", ir_dir=None):
    """The target of an isolated run: profiles the point in this (child)
    process and puts the result (a ProfileResult, or the (fixed, dynamic)
    pair for mode="both") on ``queue``; an exception becomes a result with
    ``error`` set. Works with every start method, spawn included."""
    fn = "run_single_profile_in_subprocess"
    check_str(fn, "mol_key", mol_key)
    if not hasattr(queue, "put"):
        raise TypeError(f"{fn}: queue must be a multiprocessing queue, got "
                        f"{type(queue).__name__}")
    import tracemalloc
    started = not tracemalloc.is_tracing()
    if started:  # the Python heap layer of the child, as in q2m3
        tracemalloc.start()
    try:
        r = run_single_profile(mol_key, n_est, n_trotter, mode=mode,
                               ir_dir=ir_dir)
    except Exception as e:
        mol = MOLECULES.get(str(mol_key).lower())
        if mol is None:
            mol = _Named(str(mol_key))
        err = f"{type(e).__name__}: {e}\n{traceback.format_exc()}"
        modes = ["fixed", "dynamic"] if mode == "both" else [mode]
        out = [_failed(mol, n_est if isinstance(n_est, int) else 0,
                       n_trotter if isinstance(n_trotter, int) else 0,
                       str(m), err) for m in modes]
        r = tuple(out) if mode == "both" else out[0]
    finally:
        if started:
            tracemalloc.stop()
    queue.put(r)


def _isolated(mol_key, n_est, n_trotter, mode, ir_dir, on_progress):
    """One mode of one point in a spawned child, watched from here.
    Returns (ProfileResult, parent_data)."""
    ctx = multiprocessing.get_context("spawn")
    q = ctx.Queue()
    t0 = time.perf_counter()
    p = ctx.Process(target=run_single_profile_in_subprocess,
                    args=(mol_key, n_est, n_trotter, q, mode, ir_dir),
                    name=f"q2-profile-{mol_key}-{n_est}x{n_trotter}-{mode}")
    p.start()
    mon = ParentSideMonitor(p.pid, MONITOR_INTERVAL_S).start()
    result = None
    try:
        while result is None:
            try:
                result = q.get(timeout=0.05)
            except _queue.Empty:
                if not p.is_alive():
                    try:  # the last put may land after the check
                        result = q.get(timeout=0.5)
                    except _queue.Empty:
                        break
                elif time.perf_counter() - t0 > CHILD_TIMEOUT_S:
                    p.kill()
        p.join()
    finally:
        if p.is_alive():
            p.kill()
            p.join()
        mon.stop()
        q.close()
    wall = time.perf_counter() - t0
    if result is None:
        mol = molecule_arg("run_both_modes", mol_key, "mol_key")
        result = _failed(mol, n_est, n_trotter, mode,
                         f"child exited with code {p.exitcode} and no result")
    data = mon.to_dict()
    data.update(exit_code=p.exitcode, wall_s=wall, mode=mode)
    _progress(on_progress, f"{mol_key} ({n_est},{n_trotter}) {mode}: child "
              f"{p.pid} exit {p.exitcode}, {wall:.2f} s, peak RSS "
              f"{mon.peak_rss_mb:.1f} MB (VmHWM {mon.peak_hwm_mb:.1f} MB)")
    return result, data


def _point_args(fn, mol_key, n_est, n_trotter, ir_dir, on_progress):
    check_str(fn, "mol_key", mol_key)
    molecule_arg(fn, mol_key, "mol_key")
    check_int(fn, "n_est", n_est, 1)
    check_int(fn, "n_trotter", n_trotter, 1)
    check_callback(fn, "on_progress", on_progress)
    if ir_dir is not None and not isinstance(ir_dir, (str, os.PathLike)):
        raise TypeError(f"{fn}: ir_dir must be a path or None, got "
                        f"{type(ir_dir).__name__}")
    return os.fspath(ir_dir) if ir_dir is not None else None


def run_both_modes(mol_key, n_est, n_trotter, ir_dir=None, on_progress=None):
    """Fixed, then dynamic mode, each in its own spawned process watched
    from here. Returns (result_fixed, result_dynamic, parent_data_fixed,
    parent_data_dynamic); parent_data: peak_rss_mb, peak_hwm_mb, peak_smaps,
    exit_code, wall_s, ... as the parent saw the child."""
    ir_dir = _point_args("run_both_modes", mol_key, n_est, n_trotter, ir_dir,
                         on_progress)
    molecule_arg("run_both_modes", mol_key, "mol_key").validate()
    rf, df = _isolated(mol_key, n_est, n_trotter, "fixed", ir_dir,
                       on_progress)
    rd, dd = _isolated(mol_key, n_est, n_trotter, "dynamic", ir_dir,
                       on_progress)
    return rf, rd, df, dd


def _grid_arg(fn, grid):
    if grid is None:
        return list(H2_SWEEP_GRID)
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


def run_sweep(mol_key="h2", mode="dynamic", grid=None, on_progress=None):
    """Every grid point in its own spawned process. Returns {(n_est,
    n_trotter): ProfileResult} of the points that succeeded; a failed point
    is logged (warning) and left out."""
    fn = "run_sweep"
    check_str(fn, "mol_key", mol_key)
    molecule_arg(fn, mol_key, "mol_key")
    check_mode(fn, mode)
    pts = _grid_arg(fn, grid)
    check_callback(fn, "on_progress", on_progress)
    results = {}
    for i, (e, t) in enumerate(pts, 1):
        _progress(on_progress, f"[{i}/{len(pts)}] {mol_key} ({e},{t}) {mode}")
        r, data = _isolated(mol_key, e, t, mode, None, on_progress)
        if r.error is not None:
            log.warning("run_sweep: %s (%d,%d) %s failed: %s", mol_key, e, t,
                        mode, r.error.splitlines()[0])
            continue
        r.parent_data = data
        results[(e, t)] = r
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
                        f"dict of run_sweep, or tuples), got {type(r).__name__}")
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
