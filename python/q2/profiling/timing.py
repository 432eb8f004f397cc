"""Timing tools with q2m3's signatures (stdlib only: importing this module
loads neither the compiler nor NumPy).

    with profile_section("QPE calculation") as timing:
        result = run_qpe()
    print(f"Elapsed: {timing['elapsed']:.3f}s")

Beyond q2m3: the section dict also has ``'cpu'`` (process CPU seconds), and
ProfilingStats has ``median`` and ``stddev``.
"""
import contextlib
import functools
import math
import time

from ._args import check_bool, check_number, check_str

__all__ = ["profile_section", "profile_function", "ProfilingStats"]


@contextlib.contextmanager
def profile_section(name, verbose=True):
    """Times the block. Yields a dict whose ``'elapsed'`` (wall seconds,
    perf_counter) and ``'cpu'`` (process CPU seconds) are set on exit, also
    when the block raises; prints ``[Profile] name: X.XXXs`` if verbose."""
    check_str("profile_section", "name", name)
    check_bool("profile_section", "verbose", verbose)
    timing = {"name": name, "elapsed": 0.0, "cpu": 0.0}
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        yield timing
    finally:
        timing["elapsed"] = time.perf_counter() - t0
        timing["cpu"] = time.process_time() - c0
        if verbose:
            print(f"[Profile] {name}: {timing['elapsed']:.3f}s")


def profile_function(func=None, *, verbose=True):
    """Decorator timing every call of ``func`` (``@profile_function`` or
    ``@profile_function(verbose=False)``); the last call's seconds are in
    ``wrapper.last_elapsed`` and all calls in ``wrapper.stats``."""
    check_bool("profile_function", "verbose", verbose)
    if func is not None and not callable(func):
        raise TypeError("profile_function: func must be callable, got "
                        f"{type(func).__name__}")

    def deco(f):
        stats = ProfilingStats(f.__qualname__)

        @functools.wraps(f)
        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return f(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - t0
                stats.record(elapsed)
                timed.last_elapsed = elapsed
                if verbose:
                    print(f"[Profile] {f.__name__}: {elapsed:.3f}s")

        timed.stats = stats
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
