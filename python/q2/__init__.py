"""q2: profiling and compile-once/call-many QPE circuits from Python.

Thin over q2-opt's C++ libraries (the extension ``q2._q2``): every
measurement, record and rule is the libraries', and every record is a typed
class of the extension whose attributes are the keys of the file it is
written to (docs/python.md). The package keeps only what must be Python,
one module per concern:

    _native     loading the extension on first use; Record
    _args       argument checks (shared with q2.profiling)
    _timing     profile_section, profile_function, default_stats
    _compile    compile, build_program, Energy, the ir_output_dir variable
    _sweeps     run_single_profile, run_both_modes, run_sweep, plot_sweep
    compare     compare, CompareResult
    view        show, view, ReportView (q2-profile show / html)
    molecule    MoleculeConfig (q2m3's q2m3.molecule)
    profiling   q2m3's profiling API, signature for signature

memory      take_snapshot, read_proc_status, read_smaps_rollup, MemoryTimeline
timing      profile_section, profile_function, ProfilingStats
processes   measure_command
IR          analyze_ir_stages
pipeline    compile, run_single_profile, run_both_modes, run_sweep,
            load_results, read_report, plot_sweep
"""
from . import _config  # noqa: F401  (q2._config: where the tools are)
from ._args import check_modes as _check_modes
from ._compile import (Energy, _bin, _IRScope, _ir_scope, _runtime_lib,
                       build_program, compile)
from ._native import NATIVE as _NATIVE, LazyExtension, Record, native
from ._sweeps import (_vars, plot_sweep, run_both_modes, run_single_profile,
                      run_sweep)
from ._timing import default_stats as _default_stats
from ._timing import profile_function, profile_section
from .compare import CompareResult, compare
from .view import ReportView, show, view

_q2 = LazyExtension()   # the module itself once loaded (q2._native.native)

__all__ = sorted(_NATIVE) + [
    "Record", "profile_section", "profile_function", "default_stats",
    "compile", "Energy", "build_program",
    "run_single_profile", "run_both_modes", "run_sweep", "plot_sweep",
    "compare", "CompareResult", "show", "view", "ReportView",
]


def _modes_arg(fn, value):
    return _check_modes(fn, value)


def __getattr__(name):
    if name in _NATIVE:
        return getattr(native(), name)
    if name == "default_stats":
        return _default_stats()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
