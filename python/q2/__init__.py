"""q2: profiling and compile-once/call-many QPE circuits from Python.

Thin wrappers over q2-opt's C++ libraries (the extension ``q2._q2``); every
measurement, record and rule is the libraries'. The names follow the
profiling API Python users know (docs/python.md has an example for each):

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
import json
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
        globals()["_q2"] = mod
        return getattr(mod, name)


_q2 = _LazyExtension()

__all__ = [
    "Record", "take_snapshot", "read_proc_status", "read_smaps_rollup",
    "MemoryTimeline", "profile_section", "profile_function",
    "ProfilingStats", "default_stats", "measure_command",
    "analyze_ir_stages", "compile", "CompileResult", "Circuit", "Energy",
    "build_program", "program_options", "run_single_profile", "run_both_modes", "run_sweep",
    "SweepResult", "load_results", "read_report", "plot_sweep",
]


# Profile comparison (q2-profile compare), self-contained in compare.py.
from .compare import compare, CompareResult  # noqa: E402
__all__ += ["compare", "CompareResult"]

# ---------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------

class Record:
    """A record as the C++ library writes it (its JSON keys), dataclass-like:
    fields as attributes, ``to_dict()``, equality, a readable repr. Nested
    objects are Records, lists of objects lists of Records."""

    __slots__ = ("_d",)

    def __init__(self, data):
        object.__setattr__(self, "_d", dict(data))

    @classmethod
    def from_json(cls, text):
        return cls(json.loads(text))

    def __reduce__(self):  # pickle/copy: rebuilt from the data
        return (type(self), (self._d,))

    def __getattr__(self, name):
        if name.startswith("__") or name == "_d":
            raise AttributeError(name)
        try:
            return _wrap(self._d[name])
        except KeyError:
            raise AttributeError(
                f"{type(self).__name__} has no field {name!r} "
                f"(fields: {', '.join(self._d)})") from None

    def __getitem__(self, key):
        return _wrap(self._d[key])

    def __contains__(self, key):
        return key in self._d

    def __setattr__(self, name, value):
        raise AttributeError("records are read-only")

    def __eq__(self, other):
        return isinstance(other, Record) and self._d == other._d

    def __dir__(self):
        return list(self._d) + ["to_dict", "fields"]

    def fields(self):
        """The field names, in the library's order."""
        return list(self._d)

    def get(self, key, default=None):
        return _wrap(self._d.get(key, default))

    def to_dict(self):
        """A deep copy as plain dicts and lists (JSON-compatible)."""
        return json.loads(json.dumps(self._d))

    def __repr__(self):
        items = []
        for k, v in self._d.items():
            if isinstance(v, (dict, list)):
                v = f"<{type(v).__name__} of {len(v)}>"
            else:
                v = repr(v)
            items.append(f"{k}={v}")
            if len(items) == 8:
                items.append("...")
                break
        return f"{type(self).__name__}({', '.join(items)})"


def _wrap(v):
    if isinstance(v, dict):
        return Record(v)
    if isinstance(v, list) and v and isinstance(v[0], dict):
        return [Record(x) for x in v]
    return v


def _pid(pid):
    """"self" or None -> 0 (the calling process), else the int."""
    if pid is None or pid == "self":
        return 0
    if isinstance(pid, bool) or not isinstance(pid, int) or pid < 0:
        raise ValueError(f"pid must be 'self' or a non-negative int, got {pid!r}")
    return pid


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
# Memory
# ---------------------------------------------------------------------------

def take_snapshot(label, pid="self", smaps=False):
    """All memory layers now (docs/profiling-api.md): /proc status, rusage
    and glibc heap (own process only), optionally smaps_rollup."""
    return Record.from_json(_q2.take_snapshot_json(label, _pid(pid), smaps))


def read_proc_status(pid="self"):
    """/proc/<pid>/status in bytes: vm_rss_bytes, vm_hwm_bytes, ..."""
    return Record.from_json(_q2.read_proc_status_json(_pid(pid)))


def read_smaps_rollup(pid="self"):
    """/proc/<pid>/smaps_rollup as {"Rss": bytes, "Pss": bytes, ...}."""
    return _q2.read_smaps_rollup(_pid(pid))


class MemoryTimeline:
    """Samples the RSS every ``interval_s`` on a sampler thread while the
    block runs; keeps the peak and smaps_rollup captured near it.

        with q2.MemoryTimeline(0.05) as tl:
            work()
        tl.peak.rss_bytes, tl.peak_smaps["Rss"], len(tl.samples)
    """

    def __init__(self, interval_s=0.1, pid="self", smaps_at_peaks=True):
        interval_ms = round(float(interval_s) * 1000)
        self._t = _q2.Timeline(interval_ms, _pid(pid), smaps_at_peaks)
        self._record = None

    def __enter__(self):
        self._record = None
        self._t.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def stop(self):
        self._t.stop()
        self._record = Record.from_json(self._t.record_json(True))
        return self._record

    def sample_now(self):
        self._t.sample_now()

    @property
    def record(self):
        """The timeline record as in reports (interval_ms, sampler, peak,
        samples, ...); the live state while running."""
        if self._record is not None:
            return self._record
        return Record.from_json(self._t.record_json(True))

    @property
    def samples(self):
        """[(t_s, rss_bytes), ...]"""
        return [(s["t_s"], s["rss_bytes"]) for s in self.record.to_dict()["samples"]]

    @property
    def peak(self):
        """The highest sample (t_s, rss_bytes, smaps_rollup, ...), or None."""
        return self.record.get("peak")

    @property
    def peak_rss(self):
        p = self.peak
        return p.rss_bytes if p is not None else 0

    @property
    def peak_smaps(self):
        """smaps_rollup captured at (or nearest below) the peak, or None."""
        p = self.peak
        return p.get("smaps_rollup") if p is not None else None


# ---------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------

class ProfilingStats:
    """Named accumulators of timings (seconds), each the library's Stats
    (exact median)."""

    def __init__(self):
        self._s = {}

    def _get(self, name):
        s = self._s.get(name)
        if s is None:
            s = self._s[name] = _q2.Stats()
        return s

    def record(self, name, seconds):
        self._get(name).add(float(seconds))

    def names(self):
        return list(self._s)

    def __contains__(self, name):
        return name in self._s

    def count(self, name):
        return self._s[name].count() if name in self._s else 0

    def total(self, name):
        return self._get(name).total() if name in self._s else 0.0

    def mean(self, name):
        return self._get(name).mean() if name in self._s else 0.0

    def min(self, name):
        return self._get(name).min() if name in self._s else 0.0

    def max(self, name):
        return self._get(name).max() if name in self._s else 0.0

    def median(self, name):
        return self._get(name).median() if name in self._s else 0.0

    def samples(self, name):
        return self._get(name).samples() if name in self._s else []

    def stats(self, name):
        """count, total, mean, min, median, max, stddev as a Record."""
        return Record.from_json(self._get(name).record_json())

    def summary(self, name=None, scale=1e3, unit="ms"):
        """One line per name ("name: n=5 total=14 mean=2.8 ... ms"), or the
        line of one name."""
        if name is not None:
            return self._get(name).summary(scale, unit)
        return "\n".join(f"{n}: {s.summary(scale, unit)}"
                         for n, s in self._s.items())

    def to_dict(self):
        return {n: self.stats(n).to_dict() for n in self._s}

    def reset(self):
        self._s.clear()


default_stats = ProfilingStats()


class profile_section:
    """Times a block (wall and process CPU) into ``stats``
    (default ``q2.default_stats``) under ``name``.

        with q2.profile_section("hamiltonian") as s:
            ...
        s.wall_s, s.cpu_s
    """

    def __init__(self, name, stats=None):
        self.name = name
        self.stats = default_stats if stats is None else stats
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
# Processes
# ---------------------------------------------------------------------------

def measure_command(command, directory, wall_s=900, rss_mb=8192, cwd=None,
                    env=None, poll_s=None, kill_grace_s=None):
    """Runs ``command`` (argv list, no shell) as ``q2-profile measure``:
    its own process group, budgets on wall time and summed tree RSS,
    evidence in ``directory`` (must not exist: record.json, stdout.txt,
    stderr.txt). Returns the record (the fields of record.json).

    Refusals (before anything starts): ValueError for bad values,
    FileExistsError for an existing directory, OSError (FileNotFoundError,
    NotADirectoryError) for a missing parent, cwd or program. ^C stops the
    tree and raises KeyboardInterrupt."""
    if isinstance(command, (str, bytes)):
        raise ValueError("command must be a list of arguments (no shell)")
    argv = [os.fspath(c) for c in command]
    env_pairs = [(str(k), str(v)) for k, v in (env or {}).items()]
    text = _q2.measure_json(argv, os.fspath(directory), float(wall_s),
                            float(rss_mb), os.fspath(cwd) if cwd else "",
                            env_pairs,
                            None if poll_s is None else float(poll_s),
                            None if kill_grace_s is None else float(kill_grace_s))
    return Record.from_json(text)


# ---------------------------------------------------------------------------
# IR
# ---------------------------------------------------------------------------

def analyze_ir_stages(ir_dir):
    """[(stage, bytes, lines, ops), ...] for the files of an ``--ir-dir``
    directory (0_Input.mlir .. 6_ObjectCode.o), as in the report's ``ir``."""
    return _q2.analyze_ir_stages(os.fspath(ir_dir))


# ---------------------------------------------------------------------------
# Compile once, call many
# ---------------------------------------------------------------------------

def _runtime_lib():
    return os.environ.get("Q2_RUNTIME_LIB") or _config.RUNTIME_LIB


def _bin(tool):
    d = os.environ.get("Q2_BIN_DIR") or _config.BIN_DIR
    p = os.path.join(d, tool)
    return p if os.access(p, os.X_OK) else tool


def program_options():
    """The options of a program built from a Hamiltonian, as declared once
    in ProgramRequest.def (q2-qpe's flags): [(name, default, help), ...];
    a default None is computed (n_est from the resolution, n_trotter from
    the Trotter bound, ...)."""
    return _q2.program_options()


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
    resolution = metadata["resolution"]
    exact = metadata.get("exact_energy")

    def make(value, default_coeffs):
        return Energy(value, resolution, exact if default_coeffs else None)
    return make


class Circuit:
    """A compiled program loaded into this process. ``circuit(coeffs)``
    returns ``(probabilities, energy)``: a NumPy array of 2^n_est floats
    written by the runtime (pass ``out=`` to reuse one) and the decoded QPE
    energy, an ``Energy`` (a float that also carries the resolution, and
    for the default coefficients the exact energy and the error in
    resolutions). ``coeffs`` None means the program's default coefficients
    (the only choice for mode="fixed"). The GIL is released during the
    call; calls of one circuit from several threads take turns."""

    def __init__(self, native):
        self._c = native
        native.energy_type = _energy_type(native.metadata)

    def __call__(self, coeffs=None, out=None):
        return self._c(coeffs, out)

    @property
    def metadata(self):
        return Record(self._c.metadata)

    @property
    def n_probs(self):
        return self._c.n_probs

    @property
    def default_coeffs(self):
        return self._c.metadata["default_coeffs"]

    @property
    def threads(self):
        return self._c.threads

    @threads.setter
    def threads(self, n):
        self._c.threads = n

    @property
    def runtime_library(self):
        return self._c.runtime_library

    def block_stats(self):
        """How the powered blocks of the calls since the last reset were
        applied (as in the report's phase_c blocks)."""
        return _wrap(json.loads(self._c.block_stats_json()).get("blocks", []))

    def reset_block_stats(self):
        self._c.reset_block_stats()


class CompileResult:
    """What ``compile`` returns: callable like its circuit, plus the profile.

    ``stages``  per-stage records (the report's phase_b.stages: name, kind,
                wall_s, cpu_s, rss_after_bytes, peak_rss_bytes, ir, ...)
    ``report``  the whole q2.profile/3 report as a Record
    ``compile_s``  wall seconds of the compile stages
    ``circuit``, ``object`` (the ELF bytes), ``metadata``
    """

    def __init__(self, native_circuit, native_report, obj):
        self.ir_dir = None  # where the stages' IR was kept, if anywhere
        self.circuit = Circuit(native_circuit)
        self._report = native_report
        self.object = obj
        self.report = (Record.from_json(native_report.json())
                       if native_report is not None else None)
        self._call = native_circuit  # one Python frame per call, not two

    def __call__(self, coeffs=None, out=None):
        return self._call(coeffs, out)

    @property
    def metadata(self):
        return self.circuit.metadata

    @property
    def stages(self):
        if self.report is None:
            return []
        return self.report.phase_b.stages

    @property
    def passes(self):
        if self.report is None:
            return []
        return self.report.phase_b.get("passes") or []

    @property
    def compile_s(self):
        return self._report.compile_seconds() if self._report else None

    @property
    def compile_peak_rss(self):
        return self._report.compile_peak_rss() if self._report else None

    def stage_table(self):
        """The table q2-opt --profile-stages prints."""
        return self._report.stage_table() if self._report else ""

    def pass_table(self, top=20):
        return self._report.pass_table(top) if self._report else ""

    def write_report(self, path):
        """Writes the report as q2-opt --report does (q2.profile/3)."""
        if self._report is None:
            raise ValueError("compiled without profile=True: no report")
        self._report.write(os.fspath(path))

    def to_dict(self):
        return self.report.to_dict() if self.report is not None else {}


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


def compile(program_or_fcidump, n_est=None, n_trotter=None, mode=None,
            profile=True, *, ir_dir=None, runtime_lib=None, max_qubits=0,
            profile_passes=False, timeline_interval_ms=5, **options):
    """Compiles a QPE program through the six stages in this process and
    loads it: one compile session, as ``q2-opt`` runs it. ``program_or_fcidump``:
    a Hamiltonian file (FCIDUMP, qubit JSON, term lines; the program is
    built as ``build_program`` builds it, with n_est, n_trotter, mode and
    the ``program_options()`` among ``options``: order, power,
    unroll_program, resolution, window, base_time, energy_shift), a
    ``.mlir`` program file, or program text (a string with a newline or a
    brace; any other string is a path). The other ``options`` are those of
    PipelineOptions.def in Python spelling (keep_native_pauli, unroll,
    power_blocks, opt_level, ...). With ``profile``, the stages are
    measured as by ``q2-opt --profile-stages`` (``profile_passes`` as by
    --profile-passes, the RSS sampled every ``timeline_interval_ms``); with
    ``ir_dir`` the IR after each stage is written there."""
    names = {name for name, _, _ in _q2.program_options()}
    program = {k: options.pop(k) for k in list(options) if k in names}
    program.update(n_est=n_est, n_trotter=n_trotter, mode=mode)
    given = sorted(k for k, v in program.items() if v is not None)
    if ir_dir is None and _ir_scope.get() is not None:
        ir_dir = _ir_scope.get().next_dir()
    src = program_or_fcidump
    is_text = isinstance(src, str) and ("\n" in src or "{" in src)
    path = None if is_text else os.fspath(src)
    if is_text or path.endswith(".mlir"):
        if given:  # as q2-opt refuses --n-est for an MLIR input
            raise ValueError(
                f"compile: {', '.join(given)} act(s) on a Hamiltonian input "
                f"(the program is built from it); "
                f"{'program text' if is_text else repr(path)} is a program")
        program = {}
    circuit, report, obj = _q2.compile(
        src if is_text else "", path or "", bool(profile),
        os.fspath(ir_dir) if ir_dir else "", runtime_lib or _runtime_lib(),
        int(max_qubits), options, program, bool(profile_passes),
        int(timeline_interval_ms))
    result = CompileResult(circuit, report, obj)
    result.ir_dir = os.fspath(ir_dir) if ir_dir else None
    return result


def read_report(path):
    """Reads a q2.profile/3 report (q2-opt --report) into a Record."""
    return Record.from_json(_q2.read_report(os.fspath(path)).json())


# ---------------------------------------------------------------------------
# Isolated runs and sweeps (the orchestrator: every point in child processes)
# ---------------------------------------------------------------------------

class SweepResult:
    """The points of a sweep (PointRecords: key, status, reason, wall_s,
    peak_rss_mb, phases, report, ...) and its counts."""

    def __init__(self, native):
        self._r = native
        self.points = [Record.from_json(t) for t in native.records_json]
        self.skipped = list(native.skipped)
        self.ran = native.ran
        self.skipped_count = native.skipped_count
        self.failed = native.failed
        self.cancelled = native.cancelled

    def __len__(self):
        return len(self.points)

    def __iter__(self):
        return iter(self.points)

    def __getitem__(self, i):
        return self.points[i]

    def compile_seconds(self):
        """Per point: wall seconds of the report's compile stages, or None."""
        return self._r.compile_seconds()

    def summary_csv(self):
        """summary.csv's text, one row per point (columns in docs/sweeps.md:
        the point's phases, then its report's prob_sum, energy and its
        error, compile and timeline peaks, IR kB and lines per stage)."""
        return self._r.summary_csv()

    def summary_table(self):
        return self._r.summary_table()

    def write_results(self, path):
        """One JSON array (q2-profile merge's results.json)."""
        self._r.write_results(os.fspath(path))

    def to_dicts(self):
        return [p.to_dict() for p in self.points]

    def to_dataframe(self):
        """One row per point, the columns of summary.csv (needs pandas)."""
        try:
            import pandas as pd
        except ImportError as e:
            raise ImportError("to_dataframe needs pandas (Debian: "
                              "python3-pandas)") from e
        import io
        return pd.read_csv(io.StringIO(self.summary_csv()),
                           keep_default_na=True)

    def plot(self, sweep_dir, out=None):
        return plot_sweep(sweep_dir, out)


def _molecules(molecules):
    """[(name, file, n_terms)] from {name: file}, [(name, file[, n])] or
    None (the default H2 example)."""
    if molecules is None:
        exe = os.path.join(os.environ.get("Q2_BIN_DIR") or _config.BIN_DIR,
                           "q2-profile")
        return [_q2.default_molecule(_q2.examples_dir_for(exe))]
    if isinstance(molecules, (str, bytes, os.PathLike)):
        raise TypeError("run_sweep: molecules must be {name: file} or "
                        "[(name, file[, n_terms])], not a single "
                        f"{type(molecules).__name__}{_Q2M3_HINT}")
    items = molecules.items() if isinstance(molecules, dict) else molecules
    out = []
    for m in items:
        name, path, *rest = m
        out.append((str(name), os.path.abspath(os.fspath(path)),
                    int(rest[0]) if rest else 0))
    return out


def _grid(grid):
    if grid is None:
        return None
    if isinstance(grid, str):
        return _q2.parse_grid(grid)
    return [(int(e), int(t)) for e, t in grid]


def _sweep(out_dir, molecules, grid, modes, runs, jobs, wall_s, rss_mb,
           total_rss_mb, poll_s, retry_failed, only, q2_qpe, q2_opt, vars,
           on_progress, fn="run_sweep"):
    out_dir = _out_dir_arg(fn, out_dir)
    modes = _modes_arg(fn, modes)
    if on_progress is not None and not callable(on_progress):
        raise TypeError(f"{fn}: on_progress must be callable or None")
    v = {"q2_qpe": q2_qpe or _bin("q2-qpe"), "q2_opt": q2_opt or _bin("q2-opt")}
    v.update(vars or {})
    args = {
        "out_dir": os.path.abspath(os.fspath(out_dir)),
        "molecules": _molecules(molecules),
        "grid": _grid(grid),
        "modes": list(modes),
        "vars": v,
        "runs": runs,  # None: q2-profile's default (SweepSpec)
        "jobs": int(jobs),
        "wall_s": None if wall_s is None else float(wall_s),
        "rss_mb": None if rss_mb is None else float(rss_mb),
        "total_rss_mb": float(total_rss_mb),
        "poll_s": None if poll_s is None else float(poll_s),
        "retry_failed": bool(retry_failed),
        "only": list(only or []),
    }
    cb = None
    if on_progress is not None:
        def cb(event):
            on_progress(Record(event))
    return SweepResult(_q2.run_sweep(args, cb))


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
    started and finished (event.kind, key, status, done, total, running,
    elapsed_s, eta_s); an exception in it stops the sweep and is raised.
    ``runs``, ``wall_s``, ``rss_mb``, ``poll_s`` None are q2-profile's
    defaults (``q2-profile sweep --help``: 5 runs, 600 s and 4000 MB per
    phase, polled every 10 ms; declared once, in SweepSpec)."""
    return _sweep(out_dir, molecules, grid, modes, runs, jobs, wall_s, rss_mb,
                  total_rss_mb, poll_s, retry_failed, only, q2_qpe, q2_opt,
                  vars, on_progress)


def run_single_profile(hamiltonian, out_dir, n_est, n_trotter, mode="dynamic",
                       molecule=None, n_terms=0, runs=None, wall_s=None,
                       rss_mb=None, on_progress=None, **kwargs):
    """``q2-profile run --mode MODE``: one point, isolated; returns its
    PointRecord (status, reason, wall_s, peak_rss_mb, phases, report)."""
    fn = "run_single_profile"
    hamiltonian = _path_arg(fn, "hamiltonian", hamiltonian)
    _path_arg(fn, "out_dir", out_dir)
    mode = _mode_arg(fn, mode)
    n_est = _int_arg(fn, "n_est", n_est)
    n_trotter = _int_arg(fn, "n_trotter", n_trotter)
    name = molecule or os.path.splitext(os.path.basename(hamiltonian))[0]
    r = _sweep(out_dir, [(name, hamiltonian, n_terms)], [(n_est, n_trotter)],
               [mode], runs, 1, wall_s, rss_mb, 0, kwargs.pop("poll_s", None),
               kwargs.pop("retry_failed", False), None, kwargs.pop("q2_qpe", None),
               kwargs.pop("q2_opt", None), kwargs.pop("vars", None), on_progress,
               fn)
    if kwargs:
        raise TypeError(f"unexpected arguments: {', '.join(kwargs)}")
    return r.points[0]


def run_both_modes(hamiltonian, out_dir, n_est, n_trotter, molecule=None,
                   n_terms=0, runs=None, wall_s=None, rss_mb=None,
                   on_progress=None, **kwargs):
    """``q2-profile run --mode both``: the point in fixed, then dynamic mode;
    returns a SweepResult of the two."""
    fn = "run_both_modes"
    hamiltonian = _path_arg(fn, "hamiltonian", hamiltonian)
    _path_arg(fn, "out_dir", out_dir)
    n_est = _int_arg(fn, "n_est", n_est)
    n_trotter = _int_arg(fn, "n_trotter", n_trotter)
    name = molecule or os.path.splitext(os.path.basename(hamiltonian))[0]
    r = _sweep(out_dir, [(name, hamiltonian, n_terms)], [(n_est, n_trotter)],
               ["fixed", "dynamic"], runs, 1, wall_s, rss_mb, 0,
               kwargs.pop("poll_s", None), kwargs.pop("retry_failed", False),
               None, kwargs.pop("q2_qpe", None), kwargs.pop("q2_opt", None),
               kwargs.pop("vars", None), on_progress, fn)
    if kwargs:
        raise TypeError(f"unexpected arguments: {', '.join(kwargs)}")
    return r


def load_results(*dirs):
    """``q2-profile merge``: the points of finished sweeps, as a SweepResult."""
    return SweepResult(_q2.load_results([os.fspath(d) for d in dirs]))


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
