"""q2.compare: the same comparison as `q2-profile compare` (docs/compare.md)."""
import json

import pytest

import q2


@pytest.fixture(scope="module")
def base(h2, tmp_path_factory):
    """The H2 fixture's report, as A; B's variants are edits of it."""
    d = tmp_path_factory.mktemp("compare")
    path = d / "a.json"
    path.write_text(json.dumps(h2.report.to_dict()))
    return d, json.loads(path.read_text())


def variant(d, data, name, edit):
    r = json.loads(json.dumps(data))
    edit(r)
    p = d / name
    p.write_text(json.dumps(r))
    return p


def test_same_report_no_regression(base):
    d, data = base
    r = q2.compare(d / "a.json", d / "a.json")
    assert r.verdict == "no regression" and not r.regression
    assert {row["verdict"] for row in r.rows} == {"same"}
    df = r.to_dataframe()
    assert {"point", "kind", "name", "metric", "a", "b", "rel_pct",
            "verdict"} <= set(df.columns)
    assert set(df["kind"]) == {"stage", "pass", "total"}
    assert len(df) == len(r) == len(list(r))


def test_regression_and_thresholds(base):
    d, data = base

    def slower(r):
        s = [s for s in r["phase_b"]["stages"] if s["name"] == "LLVMIR"][0]
        s["wall_s"] += 1.0
        s["ir"]["bytes"] *= 2

    b = variant(d, data, "b.json", slower)
    r = q2.compare(d / "a.json", b)
    assert r.regression
    rows = {(x["name"], x["metric"]): x for x in r.rows}
    assert rows[("LLVMIR", "wall_s")]["verdict"] == "regression"
    assert rows[("LLVMIR", "ir_bytes")]["rel_pct"] == pytest.approx(100)
    assert rows[("compile", "wall_s")]["delta"] == pytest.approx(1.0)
    # Thresholds high enough: no regression.
    r = q2.compare(d / "a.json", b, thresholds={"wall": 1e6, "ir_bytes": 200})
    assert not r.regression
    # Repeated runs on both sides whose ranges overlap: noise, not counted.
    r = q2.compare([d / "a.json", b], [b, d / "a.json"])
    assert not r.regression
    assert rows[("LLVMIR", "wall_s")]["a_runs"] == [pytest.approx(
        rows[("LLVMIR", "wall_s")]["a"])]


def test_refusals(base):
    d, data = base
    other = variant(d, data, "other.json",
                    lambda r: r["parameters"].update(n_est=9))
    with pytest.raises(Exception, match="different programs"):
        q2.compare(d / "a.json", other)
    assert q2.compare(d / "a.json", other, allow_different_program=True)
    failed = variant(d, data, "failed.json", lambda r: r.update(error="boom"))
    with pytest.raises(Exception, match="failed"):
        q2.compare(d / "a.json", failed)
    with pytest.raises(Exception, match="unknown metric"):
        q2.compare(d / "a.json", d / "a.json", thresholds={"speed": 1})
    opts = variant(d, data, "opts.json",
                   lambda r: r["options"].update({"outline-gates": 0}))
    r = q2.compare(d / "a.json", opts)
    assert r.option_differences == ["outline-gates: 1024 -> 0"]
