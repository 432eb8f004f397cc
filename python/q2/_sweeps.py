"""Isolated runs and sweeps from Python: ``q2-profile run`` and ``sweep``
(the C++ sweep engine: every point in budgeted child processes), their
pandas and matplotlib conversions. q2m3's signatures of the same things are
``q2.profiling.orchestrator``'s, over the same engine."""
import os
import sys

from . import _config
from ._args import (Q2M3_HINT, check_callback, check_int, check_mode,
                    check_modes, check_path)
from ._compile import _bin
from ._native import extends_native, native


def _out_dir_arg(fn, value):
    """out_dir, refusing a bare molecule key: q2m3's run_sweep("h2") would
    otherwise run a sweep into ./h2."""
    path = check_path(fn, "out_dir", value)
    from .profiling.molecules import MOLECULES
    if path.lower() in MOLECULES:
        raise ValueError(
            f"{fn}: out_dir {path!r} is a molecule key, not a directory "
            f"(q2m3's run_sweep(mol_key) is q2.profiling.orchestrator."
            f"run_sweep); to use a directory of that name pass './{path}'")
    return path


@extends_native
def _extend(mod):
    """The pandas and matplotlib conversions of the extension's classes
    (Python: both are optional imports)."""
    mod.SweepResult.to_dataframe = _sweep_dataframe
    mod.SweepResult.plot = lambda self, sweep_dir, out=None: \
        plot_sweep(sweep_dir, out)


def _sweep_dataframe(self):
    """SweepResult.to_dataframe(): one row per point, the columns of
    summary.csv (needs pandas)."""
    try:
        import pandas as pd
    except ImportError as e:
        raise ImportError("to_dataframe needs pandas (Debian: "
                          "python3-pandas)") from e
    import io
    return pd.read_csv(io.StringIO(self.summary_csv()), keep_default_na=True)


def _molecules(molecules):
    """{name: file} or [(name, file[, n_terms])] as given; None: the
    default H2 example."""
    if molecules is None:
        exe = os.path.join(os.environ.get("Q2_BIN_DIR") or _config.BIN_DIR,
                           "q2-profile")
        return [native().default_molecule(native().examples_dir_for(exe))]
    if isinstance(molecules, (str, bytes, os.PathLike)):
        raise TypeError("run_sweep: molecules must be {name: file} or "
                        "[(name, file[, n_terms])], not a single "
                        f"{type(molecules).__name__}{Q2M3_HINT}")
    return molecules


def _vars(q2_qpe=None, q2_opt=None, vars=None):
    v = {"q2_qpe": q2_qpe or _bin("q2-qpe"), "q2_opt": q2_opt or _bin("q2-opt")}
    v.update(vars or {})
    return v


def _run(fn, options, on_progress):
    """Runs one sweep of typed SweepOptions."""
    check_callback(fn, "on_progress", on_progress)
    return native().run_sweep(options, on_progress)


def run_sweep(out_dir, molecules=None, grid=None, modes=("fixed", "dynamic"),
              runs=None, jobs=1, wall_s=None, rss_mb=None, total_rss_mb=0,
              poll_s=None, retry_failed=False, only=None, q2_qpe=None,
              q2_opt=None, vars=None, on_progress=None, executor="local",
              slurm=None):
    """``q2-profile sweep``: every (molecule, n_est, n_trotter, mode) point
    in budgeted child processes (Phase A q2-qpe, Phase B+C q2-opt
    --profile-stages --run), resumable, results in out_dir/points/<key>/.
    ``grid``: [(n_est, n_trotter), ...] or "2x1,3x3" (default: the H2 grid);
    ``molecules``: {name: file} or [(name, file, n_terms)] (default: the H2
    example). ``on_progress(event)`` is called as points are skipped,
    started and finished (a ProgressEvent: kind, key, status, done, total,
    running, elapsed_s, eta_s); an exception in it stops the sweep and is
    raised. ``runs``, ``wall_s``, ``rss_mb``, ``poll_s`` None are
    q2-profile's defaults (``q2-profile sweep --help``: 5 runs, 600 s and
    4000 MB per phase, polled every 10 ms; declared once, in SweepSpec).
    ``executor="slurm"`` runs the points as one Slurm job array (``q2-profile
    sweep --executor slurm``, docs/sweeps.md); ``slurm``: {partition,
    account, max_parallel, sbatch_args, poll_s, wait} (wait=False returns
    once submitted; calling again resumes)."""
    fn = "run_sweep"
    if executor == "slurm":
        slurm = dict(slurm or {})
        slurm.setdefault("q2_profile", _bin("q2-profile"))
    options = native().SweepOptions(
        out_dir=_out_dir_arg(fn, out_dir), molecules=_molecules(molecules),
        grid=grid, modes=check_modes(fn, modes), runs=runs, jobs=jobs,
        wall_s=wall_s, rss_mb=rss_mb, total_rss_mb=total_rss_mb,
        poll_s=poll_s, retry_failed=retry_failed, only=only,
        vars=_vars(q2_qpe, q2_opt, vars), executor=executor, slurm=slurm)
    return _run(fn, options, on_progress)


_POINT_EXTRAS = ("poll_s", "retry_failed", "q2_qpe", "q2_opt", "vars")


def _point_options(fn, hamiltonian, out_dir, n_est, n_trotter, molecule,
                   n_terms, modes, extras):
    """SweepOptions of one point (q2-profile run)."""
    unknown = sorted(set(extras) - set(_POINT_EXTRAS))
    if unknown:
        raise TypeError(f"{fn}: unexpected arguments: {', '.join(unknown)}")
    hamiltonian = check_path(fn, "hamiltonian", hamiltonian)
    out_dir = check_path(fn, "out_dir", out_dir)
    n_est = check_int(fn, "n_est", n_est, 1)
    n_trotter = check_int(fn, "n_trotter", n_trotter, 1)
    name = molecule or os.path.splitext(os.path.basename(hamiltonian))[0]
    return dict(out_dir=out_dir, molecules=[(name, hamiltonian, n_terms)],
                grid=[(n_est, n_trotter)], modes=modes, jobs=1,
                poll_s=extras.get("poll_s"),
                retry_failed=extras.get("retry_failed", False),
                vars=_vars(extras.get("q2_qpe"), extras.get("q2_opt"),
                           extras.get("vars")))


def run_single_profile(hamiltonian, out_dir, n_est, n_trotter, mode="dynamic",
                       molecule=None, n_terms=0, runs=None, wall_s=None,
                       rss_mb=None, on_progress=None, **kwargs):
    """``q2-profile run --mode MODE``: one point, isolated; returns its
    PointRecord (status, reason, wall_s, peak_rss_mb, phases, report)."""
    fn = "run_single_profile"
    mode = check_mode(fn, mode)
    options = native().SweepOptions(
        runs=runs, wall_s=wall_s, rss_mb=rss_mb,
        **_point_options(fn, hamiltonian, out_dir, n_est, n_trotter, molecule,
                         n_terms, [mode], kwargs))
    return _run(fn, options, on_progress)[0]


def run_both_modes(hamiltonian, out_dir, n_est, n_trotter, molecule=None,
                   n_terms=0, runs=None, wall_s=None, rss_mb=None,
                   on_progress=None, **kwargs):
    """``q2-profile run --mode both``: the point in fixed, then dynamic mode;
    returns a SweepResult of the two."""
    fn = "run_both_modes"
    options = native().SweepOptions(
        runs=runs, wall_s=wall_s, rss_mb=rss_mb,
        **_point_options(fn, hamiltonian, out_dir, n_est, n_trotter, molecule,
                         n_terms, ["fixed", "dynamic"], kwargs))
    return _run(fn, options, on_progress)


def plot_sweep(sweep_dir, out=None, python=None):
    """Runs tools/q2-profile/plot_sweep.py (matplotlib) on a sweep or merge
    directory; returns the PNG paths written."""
    import subprocess
    script = os.path.join(os.path.dirname(__file__), "plot_sweep.py")
    out = os.fspath(out or sweep_dir)
    cmd = [python or sys.executable, script, os.fspath(sweep_dir), "--out", out]
    subprocess.run(cmd, check=True)
    if not os.path.isdir(out):
        return []
    return sorted(os.path.join(out, f) for f in os.listdir(out)
                  if f.endswith(".png"))
