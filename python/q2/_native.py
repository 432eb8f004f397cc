"""The extension ``q2._q2`` (the compiler: libMLIR/libLLVM, ~80 MB), loaded
on the first call that needs it, so that ``import q2`` and the stdlib-only
``q2.profiling.memory``/``.timing`` cost nothing measurable; and ``Record``,
what every record class of the extension is."""
import importlib
import sys
import threading

# The extension's own functions and classes, as q2's (loaded on first use).
NATIVE = {
    "take_snapshot", "read_proc_status", "read_smaps_rollup",
    "MemoryTimeline", "ProfilingStats", "measure_command",
    "analyze_ir_stages", "program_options", "read_report", "load_results",
    "SweepResult", "SweepOptions", "ProgressEvent", "ProfileReport",
    "QPEMetadata", "MemorySnapshot", "TimelineRecord", "StageRecord",
    "PassRecord", "MeasureRecord", "PointRecord", "Circuit", "CompileResult",
}

_lock = threading.Lock()


def native():
    """The loaded extension module (loads it, with its Python additions,
    on the first call)."""
    mod = sys.modules.get("q2._q2")
    if mod is not None and getattr(mod, "_q2_extended", False):
        return mod
    with _lock:
        mod = importlib.import_module("q2._q2")
        if not getattr(mod, "_q2_extended", False):
            for extend in _extensions:
                extend(mod)
            mod._q2_extended = True
        sys.modules["q2"].__dict__["_q2"] = mod
    return mod


_extensions = []


def extends_native(f):
    """Registers ``f(module)``, called once when the extension loads (the
    Python additions to its classes: pandas, matplotlib)."""
    _extensions.append(f)
    return f


class LazyExtension:
    """``q2._q2`` before the extension is loaded: any attribute loads it."""

    def __getattr__(self, name):
        return getattr(native(), name)


class _RecordType(type):
    def __instancecheck__(cls, obj):
        return getattr(type(obj), "__q2_record__", False) is True


class Record(metaclass=_RecordType):
    """What every record class of the extension is (MemorySnapshot,
    ProfileReport, StageRecord, PointRecord, ...): ``isinstance(r,
    q2.Record)``. Each has one read-only property per key of its file,
    ``to_dict()``, ``to_json()``, ``fields()``, ``get(k)``, ``r["k"]``,
    ``k in r``, equality, copy and pickling."""
