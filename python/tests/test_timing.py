import time

import pytest

import q2


def test_profile_section_records():
    stats = q2.ProfilingStats()
    with q2.profile_section("sleep", stats) as s:
        time.sleep(0.01)
    assert s.wall_s >= 0.009
    # One implementation: q2m3's section, quiet, with the q2 attributes.
    assert s["elapsed"] == s.wall_s and s["cpu"] == s.cpu_s
    assert stats.count("sleep") == 1
    assert stats.total("sleep") == pytest.approx(s.wall_s)
    assert stats.count("sleep.cpu") == 1


def test_profile_function_default_and_named():
    q2.default_stats.reset()

    @q2.profile_function
    def f(x):
        return x * 2

    stats = q2.ProfilingStats()

    @q2.profile_function(name="g", stats=stats)
    def g():
        return 1

    assert f(3) == 6 and f(4) == 8
    assert f.stats.count == 2 and f.last_elapsed is not None
    assert g() == 1
    assert q2.default_stats.count(f.__qualname__) == 2
    assert stats.count("g") == 1
    assert f.__name__ == "f"


def test_profiling_stats():
    s = q2.ProfilingStats()
    for v in (1.0, 5.0, 3.0):
        s.record("x", v)
    assert s.count("x") == 3
    assert s.total("x") == 9.0
    assert s.mean("x") == 3.0
    assert s.min("x") == 1.0 and s.max("x") == 5.0
    assert s.median("x") == 3.0
    assert s.summary("x", 1.0, "s").startswith("n=3 total=9")
    assert "x: n=3" in s.summary(scale=1.0, unit="s")
    assert s.stats("x").median == 3.0
    assert s.to_dict()["x"]["count"] == 3
    assert s.count("missing") == 0 and s.total("missing") == 0.0
