"""q2.show / q2.view: a profile as a table or an HTML page, in a terminal
or a notebook (``q2-profile show`` and ``q2-profile html`` from Python).

The rendering is the C++ library's (q2/Profiling/ReportView.h,
ReportHTML.h): the same text and the same page as the commands, and the
same refusals (a report the project's reader refuses raises). A report is a
path, a ``ProfileReport`` record (``q2.read_report(...)``), or anything
with a ``.report`` (what ``q2.compile`` returns).
"""
import html as _html
import os

from ._native import native

__all__ = ["show", "view", "ReportView"]


def _source(report):
    """(path-or-JSON text, label) of a report argument."""
    if isinstance(report, (str, os.PathLike)):
        path = os.fspath(report)
        return path, path
    rec = getattr(report, "report", None)
    if rec is not None and hasattr(rec, "to_json"):
        report = rec
    if hasattr(report, "to_json"):
        return report.to_json(), getattr(report, "input", "") or "report"
    raise TypeError("a report path, a ProfileReport, or a compile result "
                    "with .report, got %s" % type(report).__name__)


class ReportView:
    """One report, shown as text (``str()``, ``print``) and, in Jupyter, as
    the HTML report (``_repr_html_``: the page in an isolated iframe, every
    script inline, nothing fetched)."""

    def __init__(self, report, top=0, by="time", flat=False, width=100,
                 fold=15):
        self._src, self.label = _source(report)
        self._opts = dict(width=int(width), top=int(top), by=str(by),
                          flat=bool(flat), fold=int(fold))
        self._text = native().view_text(self._src, self.label, **self._opts)

    def __str__(self):
        return self._text

    def __repr__(self):
        return self._text

    def to_dict(self):
        """The view model (schema q2.view/1: header, totals, stages,
        passes, tree, timeline)."""
        import json
        return json.loads(native().view_json(self._src, self.label))

    def html(self, out=None, title=None):
        """The self-contained page; written to ``out`` when given (returns
        the path), else returned as text."""
        page = native().report_html([self._src], [self.label],
                               title or "q2 profile: " + os.path.basename(self.label))
        if out is None:
            return page
        tmp = os.fspath(out) + ".tmp-%d" % os.getpid()
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(page)
        os.replace(tmp, out)
        return os.fspath(out)

    def _repr_html_(self):
        return ('<iframe style="width:100%%;height:900px;border:1px solid '
                '#d8dee4" sandbox="allow-scripts" srcdoc="%s"></iframe>'
                % _html.escape(self.html(), quote=True))


def view(report, **options):
    """A ReportView of ``report`` (options as for show)."""
    return ReportView(report, **options)


def show(report, top=0, by="time", flat=False, width=100, fold=15, file=None):
    """Prints what ``q2-profile show`` prints: what was profiled, the stage
    table and the pass tree (``flat``: a sorted list; ``top=N``: the N
    largest passes by ``by`` = "time", "heap" or "ir")."""
    print(ReportView(report, top=top, by=by, flat=flat, width=width,
                     fold=fold), end="", file=file)
