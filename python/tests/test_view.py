"""q2.show / q2.view: the text of `q2-profile show` and the page of
`q2-profile html`, from Python."""
import io
import json

import pytest

import q2


@pytest.fixture(scope="module")
def report(h2_report_file):
    return h2_report_file


def test_show_prints_header_stages_and_tree(report):
    d, path = report
    out = io.StringIO()
    q2.show(path, file=out)
    text = out.getvalue()
    assert "Profile of " in text and "by q2-opt" in text
    assert "program: h2" in text
    assert "HLOLowering" in text and "ObjectCode" in text
    assert max(len(line) for line in text.splitlines()) <= 100
    top = str(q2.view(path, top=3))
    assert "top 3 passes by wall time" in top


def test_view_of_a_record_and_a_compile_result(h2):
    # The same text from the record in memory and from the result.
    a = str(q2.view(h2))
    b = str(q2.view(h2.report))
    assert a == b and "Wall" in a
    model = q2.view(h2).to_dict()
    assert model["schema"] == "q2.view/1"
    assert model["totals"]["passes"] > 10


def test_html_page_is_self_contained(report, tmp_path):
    d, path = report
    v = q2.view(path)
    out = v.html(tmp_path / "p.html")
    page = open(out, encoding="utf-8").read()
    assert page.startswith("<!DOCTYPE html>") and "plotly.js v" in page
    assert 'src="http' not in page
    frame = v._repr_html_()
    assert frame.startswith("<iframe") and "srcdoc=" in frame


def test_broken_reports_are_refused(report):
    """The view reads through the project's reader (issue 40)."""
    d, path = report
    data = json.loads(path.read_text())
    data["phase_b"]["stages"][1]["wall_s"] = -5
    bad = d / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(Exception) as e:
        q2.view(bad)
    assert "phase_b.stages[1].wall_s: -5 is negative" in str(e.value)
