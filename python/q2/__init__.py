"""q2: profiling and compile-once/call-many QPE circuits from Python.

Thin over q2-opt's C++ libraries (the extension ``q2._q2``): every
measurement, record and rule is the libraries', and every record is a typed
class of the extension whose attributes are the keys of the file it is
written to (docs/python.md). This package keeps only what must be Python:
the lazy loading of the extension, context managers and decorators, the
ir_output_dir context variable, the float subclass Energy, argument checks
naming q2m3's signatures, and pandas/matplotlib conversions.

memory      take_snapshot, read_proc_status, read_smaps_rollup, MemoryTimeline
timing      profile_section, profile_function, ProfilingStats
processes   measure_command
IR          analyze_ir_stages
pipeline    compile, run_single_profile, run_both_modes, run_sweep,
            load_results, read_report, plot_sweep

q2m3's profiling API, signature for signature, is ``q2.profiling``.
"""
import contextvars
import functools
import os
import sys
import threading

from . import _config


class _LazyExtension:
    """``q2._q2`` (the compiler: libMLIR/libLLVM, ~80 MB) is loaded on the
    first call that needs it, so ``import q2`` and the stdlib-only
    ``q2.profiling.memory``/``.timing`` cost nothing measurable."""

    def __getattr__(self, name):
        import importlib
        mod = importlib.import_module(__name__ + "._q2")
        _extend(mod)
        globals()["_q2"] = mod
        return getattr(mod, name)


_q2 = _LazyExtension()

# The extension's own functions and classes, as q2's (loaded on first use).
_NATIVE = {
    "take_snapshot", "read_proc_status", "read_smaps_rollup",
    "MemoryTimeline", "ProfilingStats", "measure_command",
    "analyze_ir_stages", "program_options", "read_report", "load_results",
    "SweepResult", "SweepOptions", "ProgressEvent", "ProfileReport",
    "QPEMetadata", "MemorySnapshot", "TimelineRecord", "StageRecord",
    "PassRecord", "MeasureRecord", "PointRecord", "Circuit", "CompileResult",
}

__all__ = sorted(_NATIVE) + [
    "Record", "profile_section", "profile_function", "default_stats",
    "compile", "Energy", "build_program",
    "run_single_profile", "run_both_modes", "run_sweep", "plot_sweep",
]


def __getattr__(name):
    if name in _NATIVE:
        return getattr(_q2, name)
    if name == "default_stats":
        return _default_stats()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Profile comparison (q2-profile compare), self-contained in compare.py.
from .compare import compare, CompareResult  # noqa: E402
__all__ += ["compare", "CompareResult"]
# Reports as tables and HTML pages (q2-profile show / html), in view.py.
from .view import show, view, ReportView  # noqa: E402
__all__ += ["show", "view", "ReportView"]


class _RecordType(type):
    def __instancecheck__(cls, obj):
        return getattr(type(obj), "__q2_record__", False) is True


class Record(metaclass=_RecordType):
    """What every record class of the extension is (MemorySnapshot,
    ProfileReport, StageRecord, PointRecord, ...): ``isinstance(r,
    q2.Record)``. Each has one read-only property per key of its file,
    ``to_dict()``, ``to_json()``, ``fields()``, ``get(k)``, ``r["k"]``,
    ``k in r``, equality, copy and pickling."""


def _extend(mod):
    """The pandas and matplotlib conversions of the extension's classes
    (Python: both are optional imports)."""
    mod.SweepResult.to_dataframe = _sweep_dataframe
    mod.SweepResult.plot = lambda self, sweep_dir, out=None: \
        plot_sweep(sweep_dir, out)


# ---------------------------------------------------------------------------
# Argument checks naming q2m3's signatures
# ---------------------------------------------------------------------------

_Q2M3_HINT = ("; the q2m3 signature (mol_key, n_est, n_trotter, ...) is "
              "q2.profiling.orchestrator's")


def _path_arg(fn, name, value):
    """A path argument, or TypeError naming it (a q2m3 call passes an int
    or a molecule where q2 wants a directory)."""
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    raise TypeError(f"{fn}: {name} must be a path (str or os.PathLike), got "
                    f"{type(value).__name__} {value!r}{_Q2M3_HINT}")


def _out_dir_arg(fn, value):
    """out_dir, refusing a bare molecule key: q2m3's run_sweep("h2") would
    otherwise run a sweep into ./h2."""
    path = _path_arg(fn, "out_dir", value)
    from .profiling.molecules import MOLECULES
    if path.lower() in MOLECULES:
        raise ValueError(
            f"{fn}: out_dir {path!r} is a molecule key, not a directory "
            f"(q2m3's run_sweep(mol_key) is q2.profiling.orchestrator."
            f"run_sweep); to use a directory of that name pass './{path}'")
    return path


_MODES = ("fixed", "dynamic")


def _mode_arg(fn, value, name="mode"):
    if not isinstance(value, str):
        raise TypeError(f"{fn}: {name} must be a str ('fixed' or 'dynamic'),"
                        f" got {type(value).__name__}")
    if value not in _MODES:
        both = " (both modes: run_both_modes)" if value == "both" else ""
        raise ValueError(f"{fn}: {name} must be 'fixed' or 'dynamic', got "
                         f"{value!r}{both}")
    return value


def _modes_arg(fn, value):
    """modes as a list of mode names: a string is one mode ('both' is
    both), never its letters."""
    if isinstance(value, str):
        if value == "both":
            return list(_MODES)
        return [_mode_arg(fn, value, "modes")]
    try:
        modes = list(value)
    except TypeError:
        raise TypeError(f"{fn}: modes must be a list of 'fixed'/'dynamic', "
                        f"got {type(value).__name__}") from None
    if not modes:
        raise ValueError(f"{fn}: modes is empty")
    return [_mode_arg(fn, m, "modes") for m in modes]


def _int_arg(fn, name, value, minimum=1, allow_none=False):
    import numbers
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{fn}: {name} must be an int, got "
                        f"{type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{fn}: {name} must be >= {minimum}, got {value}")
    return int(value)


# ---------------------------------------------------------------------------
# Timing (context manager and decorator; the accumulators are the library's)
# ---------------------------------------------------------------------------

_stats_lock = threading.Lock()


def _default_stats():
    """``q2.default_stats``: made on first use (it loads the extension)."""
    with _stats_lock:
        if "default_stats" not in globals():
            globals()["default_stats"] = _q2.ProfilingStats()
        return globals()["default_stats"]


class profile_section:
    """Times a block (wall and process CPU) into ``stats``
    (default ``q2.default_stats``) under ``name``.

        with q2.profile_section("hamiltonian") as s:
            ...
        s.wall_s, s.cpu_s
    """

    def __init__(self, name, stats=None):
        self.name = name
        self.stats = _default_stats() if stats is None else stats
        self.wall_s = self.cpu_s = None

    def __enter__(self):
        self._timer = _q2.Timer()
        return self

    def __exit__(self, *exc):
        self.wall_s, self.cpu_s = self._timer.stop()
        self.stats.record(self.name, self.wall_s)
        self.stats.record(self.name + ".cpu", self.cpu_s)
        return False


def profile_function(func=None, *, name=None, stats=None):
    """Decorator: every call is a profile_section named after the function
    (``@profile_function`` or ``@profile_function(name=..., stats=...)``)."""
    def deco(f):
        label = name or f.__qualname__

        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            with profile_section(label, stats):
                return f(*args, **kwargs)
        return wrapper
    return deco(func) if func is not None else deco


# ---------------------------------------------------------------------------
# Compile once, call many
# ---------------------------------------------------------------------------

def _runtime_lib():
    return os.environ.get("Q2_RUNTIME_LIB") or _config.RUNTIME_LIB


def _bin(tool):
    d = os.environ.get("Q2_BIN_DIR") or _config.BIN_DIR
    p = os.path.join(d, tool)
    return p if os.access(p, os.X_OK) else tool


def build_program(hamiltonian, n_est=None, n_trotter=None, mode=None,
                  **options):
    """The stage-0 program (MLIR text) q2-qpe writes for a Hamiltonian file
    (FCIDUMP, qubit JSON or term lines). ``options``: those of
    ``program_options()`` (order, power, unroll_program, resolution,
    window, base_time, energy_shift); None or left out is q2-qpe's default
    (n_trotter None is ``--n-trotter auto``: steps from the error bound)."""
    if "unroll" in options:  # this function's earlier spelling
        options["unroll_program"] = options.pop("unroll")
    options.update(n_est=n_est, n_trotter=n_trotter, mode=mode)
    return _q2.build_program(os.fspath(hamiltonian), options)


class Energy(float):
    """A decoded QPE energy in Hartree: a float that says how far to trust it
    (docs/energies.md). ``resolution`` is the bin width (read the energy as
    value +- resolution); ``exact`` the sector's exact ground energy when the
    program carries it and the call used the default coefficients, else
    None; ``error`` = (value - exact) / resolution, in resolutions (within
    +-1 is what q2-qpe's defaults promise), or None."""

    __slots__ = ("resolution", "exact")

    def __new__(cls, value, resolution, exact=None):
        e = super().__new__(cls, value)
        e.resolution = resolution
        e.exact = exact
        return e

    @property
    def error(self):
        if self.exact is None or not self.resolution:
            return None
        return (float(self) - self.exact) / self.resolution

    def __str__(self):
        s = "%.6f Ha (resolution %.6f Ha" % (float(self), self.resolution)
        if self.exact is not None:
            s += "; exact %.6f Ha, error %+.2f resolutions" % (self.exact,
                                                              self.error)
        return s + ")"

    def __repr__(self):
        return "Energy(" + str(self) + ")"

    def __reduce__(self):
        return (Energy, (float(self), self.resolution, self.exact))


def _energy_type(metadata):
    """What the native circuit calls to make each call's energy."""
    resolution, exact = metadata.resolution, metadata.exact_energy

    def make(value, default_coeffs):
        return Energy(value, resolution, exact if default_coeffs else None)
    return make


class _IRScope:
    """The directory of a q2.profiling.ir.ir_output_dir block: every compile
    inside it (in this thread or task: a context variable, no os.chdir)
    keeps its stages' IR in a fresh subdirectory compile_<n>."""

    def __init__(self, directory):
        self.directory = directory
        self._n = 0
        self._lock = threading.Lock()

    def next_dir(self):
        """A new compile_<n>: made here, so that compiles of other threads
        or processes sharing the directory never get the same one."""
        with self._lock:
            while True:
                self._n += 1
                d = os.path.join(self.directory, f"compile_{self._n}")
                try:
                    os.mkdir(d)
                    return d
                except FileExistsError:
                    continue


_ir_scope = contextvars.ContextVar("q2_ir_output_dir", default=None)


def compile(program_or_fcidump=None, n_est=None, n_trotter=None, mode=None,
            profile=True, *, text=None, ir_dir=None, runtime_lib=None,
            max_qubits=0, profile_passes=False, timeline_interval_ms=5,
            **options):
    """Compiles a QPE program through the six stages in this process and
    loads it: one compile session, as ``q2-opt`` runs it. The program is
    either a file, ``program_or_fcidump``: a Hamiltonian (FCIDUMP, qubit
    JSON, term lines; the program is built as ``build_program`` builds it,
    with n_est, n_trotter, mode and the ``program_options()`` among
    ``options``: order, power, unroll_program, resolution, window,
    base_time, energy_shift) or a ``.mlir`` program; or program text,
    ``text=``. The other ``options`` are those of PipelineOptions.def in
    Python spelling (keep_native_pauli, unroll, power_blocks, opt_level,
    ...). With ``profile``, the stages are measured as by ``q2-opt
    --profile-stages`` (``profile_passes`` as by --profile-passes, the RSS
    sampled every ``timeline_interval_ms``); with ``ir_dir`` the IR after
    each stage is written there."""
    if (program_or_fcidump is None) == (text is None):
        raise TypeError("compile: give a file (program_or_fcidump) or "
                        "program text (text=), one of them")
    if text is not None and not isinstance(text, str):
        raise TypeError(f"compile: text must be a str, got "
                        f"{type(text).__name__}")
    path = None
    if text is None:
        if not isinstance(program_or_fcidump, (str, os.PathLike)):
            raise TypeError("compile: program_or_fcidump must be a path, got "
                            f"{type(program_or_fcidump).__name__} (program "
                            "text goes in text=)")
        path = os.fspath(program_or_fcidump)
        if "\n" in path:
            raise ValueError("compile: program_or_fcidump is a path; program "
                             "text goes in text=")
    names = {name for name, _, _ in _q2.program_options()}
    program = {k: options.pop(k) for k in list(options) if k in names}
    program.update(n_est=n_est, n_trotter=n_trotter, mode=mode)
    given = sorted(k for k, v in program.items() if v is not None)
    if ir_dir is None and _ir_scope.get() is not None:
        ir_dir = _ir_scope.get().next_dir()
    if text is not None or path.endswith(".mlir"):
        if given:  # as q2-opt refuses --n-est for an MLIR input
            raise ValueError(
                f"compile: {', '.join(given)} act(s) on a Hamiltonian input "
                f"(the program is built from it); "
                f"{'text' if path is None else repr(path)} is a program")
        program = {}
    result = _q2.compile(
        text or "", path or "", bool(profile),
        os.fspath(ir_dir) if ir_dir else "", runtime_lib or _runtime_lib(),
        int(max_qubits), options, program, bool(profile_passes),
        int(timeline_interval_ms))
    result.circuit.energy_type = _energy_type(result.metadata)
    result.ir_dir = os.fspath(ir_dir) if ir_dir else None
    return result


# ---------------------------------------------------------------------------
# Isolated runs and sweeps (the orchestrator: every point in child processes)
# ---------------------------------------------------------------------------

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
        return [_q2.default_molecule(_q2.examples_dir_for(exe))]
    if isinstance(molecules, (str, bytes, os.PathLike)):
        raise TypeError("run_sweep: molecules must be {name: file} or "
                        "[(name, file[, n_terms])], not a single "
                        f"{type(molecules).__name__}{_Q2M3_HINT}")
    return molecules


def _vars(q2_qpe=None, q2_opt=None, vars=None):
    v = {"q2_qpe": q2_qpe or _bin("q2-qpe"), "q2_opt": q2_opt or _bin("q2-opt")}
    v.update(vars or {})
    return v


def _run(fn, options, on_progress):
    """Runs one sweep of typed SweepOptions."""
    if on_progress is not None and not callable(on_progress):
        raise TypeError(f"{fn}: on_progress must be callable or None")
    return _q2.run_sweep(options, on_progress)


def run_sweep(out_dir, molecules=None, grid=None, modes=("fixed", "dynamic"),
              runs=None, jobs=1, wall_s=None, rss_mb=None, total_rss_mb=0,
              poll_s=None, retry_failed=False, only=None, q2_qpe=None,
              q2_opt=None, vars=None, on_progress=None):
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
    4000 MB per phase, polled every 10 ms; declared once, in SweepSpec)."""
    fn = "run_sweep"
    options = _q2.SweepOptions(
        out_dir=_out_dir_arg(fn, out_dir), molecules=_molecules(molecules),
        grid=grid, modes=_modes_arg(fn, modes), runs=runs, jobs=jobs,
        wall_s=wall_s, rss_mb=rss_mb, total_rss_mb=total_rss_mb,
        poll_s=poll_s, retry_failed=retry_failed, only=only,
        vars=_vars(q2_qpe, q2_opt, vars))
    return _run(fn, options, on_progress)


_POINT_EXTRAS = ("poll_s", "retry_failed", "q2_qpe", "q2_opt", "vars")


def _point_options(fn, hamiltonian, out_dir, n_est, n_trotter, molecule,
                   n_terms, modes, extras):
    """SweepOptions of one point (q2-profile run)."""
    unknown = sorted(set(extras) - set(_POINT_EXTRAS))
    if unknown:
        raise TypeError(f"{fn}: unexpected arguments: {', '.join(unknown)}")
    hamiltonian = _path_arg(fn, "hamiltonian", hamiltonian)
    out_dir = _path_arg(fn, "out_dir", out_dir)
    n_est = _int_arg(fn, "n_est", n_est)
    n_trotter = _int_arg(fn, "n_trotter", n_trotter)
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
    mode = _mode_arg(fn, mode)
    options = _q2.SweepOptions(
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
    options = _q2.SweepOptions(
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
