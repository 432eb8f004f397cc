"""``q2.profile_section``, ``q2.profile_function`` and ``q2.default_stats``:
q2.profiling.timing's section and decorator (the one implementation),
quiet and recording into named accumulators (``q2.ProfilingStats``, the
library's Stats: exact median) instead of printing."""
import threading

from ._native import native
from .profiling import timing as _timing

_lock = threading.Lock()
_default = []


def default_stats():
    """``q2.default_stats``: made on first use (it loads the extension)."""
    with _lock:
        if not _default:
            _default.append(native().ProfilingStats())
        return _default[0]


class _Default:
    """Records into q2.default_stats, looked up at each call."""

    def record(self, name, seconds):
        default_stats().record(name, seconds)


def profile_section(name, stats=None):
    """Times a block (wall and process CPU) into ``stats`` (default
    ``q2.default_stats``): ``name`` gets the wall seconds, ``name + ".cpu"``
    the CPU seconds. Yields the section (``s.wall_s``, ``s.cpu_s``, and
    q2m3's ``s['elapsed']``).

        with q2.profile_section("hamiltonian") as s:
            ...
        s.wall_s, s.cpu_s
    """
    return _timing.profile_section(
        name, verbose=False, stats=_Default() if stats is None else stats)


def profile_function(func=None, *, name=None, stats=None):
    """Decorator: every call is a profile_section named after the function
    (``@profile_function`` or ``@profile_function(name=..., stats=...)``)."""
    return _timing.profile_function(
        func, verbose=False, name=name,
        stats=_Default() if stats is None else stats)
