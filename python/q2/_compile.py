"""Compile once, call many: ``q2.compile`` (one compile session in this
process, as q2-opt runs it), ``build_program`` (q2-qpe's program text),
``Energy`` (a decoded energy that says how far to trust it) and the
ir_output_dir context variable ``q2.profiling.ir`` sets."""
import contextvars
import os
import threading

from . import _config
from ._native import native


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
    return native().build_program(os.fspath(hamiltonian), options)


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
            run=0, **options):
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
    each stage is written there. ``run=N`` calls the compiled program N
    times with its default coefficients as the session's Phase C, as
    ``q2-opt --run N`` does (the report's ``phase_c``, stages Load and
    Execute)."""
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
    names = {name for name, _, _ in native().program_options()}
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
    result = native().compile(
        text or "", path or "", bool(profile),
        os.fspath(ir_dir) if ir_dir else "", runtime_lib or _runtime_lib(),
        int(max_qubits), options, program, bool(profile_passes),
        int(timeline_interval_ms), int(run))
    result.circuit.energy_type = _energy_type(result.metadata)
    result.ir_dir = os.fspath(ir_dir) if ir_dir else None
    return result
