"""q2.compare: two profiles side by side (``q2-profile compare``).

The comparison is the C++ library's (q2/Orchestrator/Compare.h): same rows,
rule, thresholds and refusals as the command; docs/compare.md.
"""
import json
import os

from ._native import native

__all__ = ["compare", "CompareResult"]


def _side(x):
    """A report path, a directory (repeated reports or a sweep), or a list
    of report paths (repeated runs)."""
    if isinstance(x, (list, tuple)):
        if not x:
            raise ValueError("compare: an empty list of reports")
        return ",".join(os.fspath(p) for p in x)
    return os.fspath(x)


class CompareResult:
    """What ``q2-profile compare --json`` prints (schema q2.compare/1).

    ``rows`` is a list of dicts (point, kind, name, metric, a, b, a_runs,
    b_runs, delta, rel_pct, verdict, gated): ``pandas.DataFrame(result.rows)``
    or ``result.to_dataframe()``. ``regression`` is what the exit status of
    the command says (1 when true)."""

    def __init__(self, data):
        self.data = data
        self.rows = data["rows"]
        self.verdict = data["verdict"]
        self.regressions = data["regressions"]
        self.improvements = data["improvements"]
        self.warnings = data["warnings"]
        self.option_differences = data["option_differences"]
        self.rule = data["rule"]

    @property
    def regression(self):
        return self.regressions > 0

    def to_dict(self):
        return self.data

    def to_dataframe(self):
        import pandas
        return pandas.DataFrame(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def __len__(self):
        return len(self.rows)

    def __repr__(self):
        return "<CompareResult %s: %d rows, %d regressions, %d improvements>" % (
            self.verdict, len(self.rows), self.regressions, self.improvements)


def compare(a, b, thresholds=None, min_time_s=0.002, gate_passes=False,
            allow_different_program=False):
    """Compares profile(s) ``a`` (before) with ``b`` (after).

    ``a``/``b``: a q2.profile/3 report, a list of reports (repeated runs), a
    directory of reports, or a sweep directory. ``thresholds``: percent per
    metric, e.g. ``{"wall": 5, "peak": 2}`` (wall cpu peak heap ir lines or
    the full names). Raises ValueError/OSError/RuntimeError for what the
    command refuses with exit status 2 (other schema, failed runs, other
    programs unless ``allow_different_program``)."""
    return CompareResult(json.loads(native().compare(
        _side(a), _side(b), dict(thresholds or {}), float(min_time_s),
        bool(gate_passes), bool(allow_different_program))))
