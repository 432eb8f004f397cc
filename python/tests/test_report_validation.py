"""Issue 40: a report with a null or negative time is refused by the
project's report reader, so every Python consumer refuses it as the tools
do (q2-profile compare exits 2) instead of comparing nan or -5 s."""
import json

import pytest

import q2


@pytest.fixture(scope="module")
def report(h2_report_file):
    return h2_report_file


@pytest.mark.parametrize("value,message", [
    (None, "wall_s: null where a time in seconds belongs"),
    (-5, "wall_s: -5 is negative"),
])
def test_broken_reports_are_refused_by_every_reader(report, value, message):
    d, path = report
    data = json.loads(path.read_text())
    data["phase_b"]["stages"][1]["wall_s"] = value
    bad = d / ("bad-%s.json" % value)
    bad.write_text(json.dumps(data))
    for call in (lambda: q2.read_report(bad), lambda: q2.compare(path, bad),
                 lambda: q2.compare(bad, path),
                 lambda: q2.ProfileReport.from_json(json.dumps(data))):
        with pytest.raises(Exception) as e:
            call()
        assert "phase_b.stages[1]." + message in str(e.value)
