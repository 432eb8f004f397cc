import os

import pytest

import q2


def test_sweep_two_points_with_progress(tmp_path, h2_path):
    events = []
    r = q2.run_sweep(tmp_path / "sw", molecules={"h2": h2_path},
                     grid=[(2, 1)], modes=["fixed", "dynamic"], runs=1,
                     on_progress=events.append)
    assert [p.key for p in r] == ["h2-fixed-e2-t1", "h2-dynamic-e2-t1"]
    assert all(p.status == "ok" for p in r), [p.to_dict() for p in r]
    assert r.ran == 2 and r.failed == 0 and not r.cancelled
    kinds = [e.kind for e in events]
    assert kinds.count("started") == 2 and kinds.count("finished") == 2
    assert events[-1].done == 2 and events[-1].total == 2
    p = r[0]
    assert p.report.schema == "q2.profile/3"
    assert p.phases.BC.reason == "exit"
    assert all(s is not None and s > 0 for s in r.compile_seconds())
    assert "h2-fixed-e2-t1" in r.summary_csv()
    assert os.path.exists(tmp_path / "sw" / "summary.csv")

    # Resume: both points are skipped now.
    again = q2.run_sweep(tmp_path / "sw", molecules={"h2": h2_path},
                         grid="2x1", runs=1)
    assert again.ran == 0 and again.skipped_count == 2

    loaded = q2.load_results(tmp_path / "sw")
    assert [p.key for p in loaded] == sorted(p.key for p in r) or len(loaded) == 2

    pd = pytest.importorskip("pandas")
    df = r.to_dataframe()
    assert isinstance(df, pd.DataFrame)
    assert list(df["key"]) == ["h2-fixed-e2-t1", "h2-dynamic-e2-t1"]
    assert "compile_s" in df.columns and "peak_rss_mb" in df.columns


def test_run_single_profile_and_errors(tmp_path, h2_path):
    p = q2.run_single_profile(h2_path, tmp_path / "one", n_est=2,
                              n_trotter=1, mode="dynamic", molecule="h2",
                              runs=1)
    assert p.key == "h2-dynamic-e2-t1" and p.status == "ok"
    assert p.n_terms == 15
    with pytest.raises(ValueError):
        q2.run_single_profile(h2_path, tmp_path / "bad", n_est=2,
                              n_trotter=1, wall_s=-1)
    with pytest.raises(ValueError):
        q2.run_sweep(tmp_path / "bad2", molecules={"h2": h2_path},
                     grid=[(2, 1)], modes=[])


def test_progress_callback_error_stops_the_sweep(tmp_path, h2_path):
    class Stop(Exception):
        pass

    def cb(e):
        if e.kind == "finished":
            raise Stop()

    with pytest.raises(Stop):
        q2.run_both_modes(h2_path, tmp_path / "both", n_est=2, n_trotter=1,
                          molecule="h2", runs=1, on_progress=cb)
    # The first point finished and is kept; the second never ran.
    assert os.path.exists(tmp_path / "both/points/h2-fixed-e2-t1/result.json")
    assert not os.path.exists(tmp_path / "both/points/h2-dynamic-e2-t1/result.json")


def test_plot_sweep(tmp_path, h2_path):
    pytest.importorskip("matplotlib")
    q2.run_single_profile(h2_path, tmp_path / "p", n_est=2, n_trotter=1,
                          molecule="h2", runs=1)
    pngs = q2.plot_sweep(tmp_path / "p", tmp_path / "plots")
    assert any(p.endswith("peak_rss_vs_x.png") for p in pngs)
