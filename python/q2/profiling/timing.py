"""Timing tools with q2m3's signatures (stdlib only: importing this module
loads neither the compiler nor NumPy).

    with profile_section("QPE calculation") as timing:
        result = run_qpe()
    print(f"Elapsed: {timing['elapsed']:.3f}s")

Beyond q2m3: the section dict also has ``'cpu'`` (process CPU seconds) and
``wall_s``/``cpu_s`` attributes; ``stats=`` records into a ProfilingStats or
into q2.ProfilingStats's named accumulators (``name=`` for the decorator);
ProfilingStats has ``median`` and ``stddev``. ``q2.profile_section`` and
``q2.profile_function`` are these, quiet and into ``q2.default_stats``.
"""
import contextlib
import functools
import math
import time

from .._args import check_bool, check_number, check_str

__all__ = ["profile_section", "profile_function", "ProfilingStats",
           "Section"]


class Section(dict):
    """What profile_section yields: q2m3's dict (``timing['elapsed']``,
    wall seconds; ``timing['cpu']``, process CPU seconds; ``'name'``), set
    when the block ends, with ``wall_s`` and ``cpu_s`` as attributes."""

    @property
    def wall_s(self):
        return self["elapsed"]

    @property
    def cpu_s(self):
        return self["cpu"]


def _record(stats, name, wall, cpu):
    """Into q2m3's ProfilingStats (one series: the wall seconds), or into
    named accumulators (q2.ProfilingStats: ``name`` and ``name.cpu``)."""
    if stats is None:
        return
    if isinstance(stats, ProfilingStats):
        stats.record(wall)
    else:
        stats.record(name, wall)
        stats.record(name + ".cpu", cpu)


@contextlib.contextmanager
def profile_section(name, verbose=True, *, stats=None):
    """Times the block. Yields a dict (a Section) whose ``'elapsed'`` (wall
    seconds, perf_counter) and ``'cpu'`` (process CPU seconds) are set on
    exit, also when the block raises; prints ``[Profile] name: X.XXXs`` if
    verbose. ``stats``: also record the times there (a ProfilingStats of
    this module, or q2.ProfilingStats's named accumulators)."""
    check_str("profile_section", "name", name)
    check_bool("profile_section", "verbose", verbose)
    timing = Section(name=name, elapsed=0.0, cpu=0.0)
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        yield timing
    finally:
        timing["elapsed"] = time.perf_counter() - t0
        timing["cpu"] = time.process_time() - c0
        _record(stats, name, timing["elapsed"], timing["cpu"])
        if verbose:
            print(f"[Profile] {name}: {timing['elapsed']:.3f}s")


def profile_function(func=None, *, verbose=True, name=None, stats=None):
    """Decorator timing every call of ``func`` (``@profile_function`` or
    ``@profile_function(verbose=False)``); the last call's seconds are in
    ``wrapper.last_elapsed`` and all calls in ``wrapper.stats``. ``name``
    (default: the function's qualified name) and ``stats`` as for
    profile_section."""
    check_bool("profile_function", "verbose", verbose)
    if func is not None and not callable(func):
        raise TypeError("profile_function: func must be callable, got "
                        f"{type(func).__name__}")

    def deco(f):
        label = name or f.__qualname__
        own = ProfilingStats(label)

        @functools.wraps(f)
        def timed(*args, **kwargs):
            t0, c0 = time.perf_counter(), time.process_time()
            try:
                return f(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - t0
                own.record(elapsed)
                _record(stats, label, elapsed, time.process_time() - c0)
                timed.last_elapsed = elapsed
                if verbose:
                    print(f"[Profile] {f.__name__}: {elapsed:.3f}s")

        timed.stats = own
        timed.last_elapsed = None
        return timed

    return deco(func) if func is not None else deco


class ProfilingStats:
    """Accumulates timings (seconds) of repeated runs."""

    def __init__(self, name="default"):
        self.name = check_str("ProfilingStats", "name", name)
        self._t = []

    def record(self, elapsed):
        """Records one timing (finite, >= 0 seconds)."""
        self._t.append(check_number("ProfilingStats.record", "elapsed",
                                    elapsed, nonnegative=True))

    @property
    def total(self):
        return math.fsum(self._t)

    @property
    def count(self):
        return len(self._t)

    @property
    def mean(self):
        return self.total / len(self._t) if self._t else 0.0

    @property
    def min(self):
        return min(self._t) if self._t else 0.0

    @property
    def max(self):
        return max(self._t) if self._t else 0.0

    @property
    def median(self):
        if not self._t:
            return 0.0
        s = sorted(self._t)
        n = len(s)
        return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])

    @property
    def stddev(self):
        if len(self._t) < 2:
            return 0.0
        m = self.mean
        return math.sqrt(math.fsum((x - m) ** 2 for x in self._t) /
                         (len(self._t) - 1))

    def summary(self):
        """One line: name, count, total, mean, min, max (seconds)."""
        return (f"{self.name}: {self.count} runs, total {self.total:.3f}s, "
                f"mean {self.mean:.3f}s, min {self.min:.3f}s, "
                f"max {self.max:.3f}s")

    def __repr__(self):
        return f"ProfilingStats({self.summary()})"
