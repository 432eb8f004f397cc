"""Typed record classes (python/src/Records.cpp): generated from the
libraries' field lists, so attributes are the file's keys."""
import copy
import json
import os
import pickle

import pytest

import q2


def test_records_are_typed_classes(h2):
    r = h2.report
    assert type(r).__name__ == "ProfileReport" and isinstance(r, q2.Record)
    # (a Hamiltonian input: Phase A's stages come first and have no IR)
    st = next(s for s in r.phase_b.stages if s.name == "HLOLowering")
    assert type(st).__name__ == "StageRecord"
    assert type(st.ir).__name__ == "IRMetrics"
    assert type(r.parameters).__name__ == "QPEMetadata"
    assert type(h2.metadata).__name__ == "QPEMetadata"
    assert not isinstance({"a": 1}, q2.Record)
    # Properties are exactly the keys of the file (to_dict), and read-only.
    assert set(st.fields()) <= set(dir(st))
    with pytest.raises(AttributeError):
        st.wall_s = 1.0
    # Derived keys of the writer are properties too.
    assert r.compile_s == pytest.approx(r.compile_seconds())
    assert st.rss_after_bytes == st.end.status.vm_rss_bytes
    # The heap figures of the field list (flattened from HeapFigures).
    assert {"heap_before_bytes", "heap_after_bytes", "heap_peak_bytes",
            "heap_allocated_bytes", "heap_alloc_count",
            "heap_exact"} <= set(st.fields())
    assert st.heap_peak_bytes >= st.heap_after_bytes > 0
    assert r.phase_b.heap_peak_bytes >= st.heap_peak_bytes
    assert r.heap_peak_bytes == r.phase_b.heap_peak_bytes


def test_presence_follows_the_writer():
    own = q2.take_snapshot("own")
    other = q2.take_snapshot("other", pid=1) if os.access(
        "/proc/1/status", os.R_OK) else None
    assert "heap" in own and own.get("smaps_rollup") is None
    assert "smaps_rollup" not in own and own.smaps_rollup is None
    with pytest.raises(KeyError):
        own["smaps_rollup"]
    if other is not None:  # rusage and heap are the caller's own only
        assert "heap" not in other and other.heap is None
        assert "heap" not in other.to_dict()


def test_dict_json_pickle_round_trips(h2):
    r = h2.report
    d = r.to_dict()
    assert json.loads(r.to_json()) == d
    back = q2.ProfileReport.from_dict(d)
    assert back == r and back is not r
    assert pickle.loads(pickle.dumps(r)) == r
    st = r.phase_b.stages[0]
    assert copy.deepcopy(st) == st and copy.copy(st) == st
    md = pickle.loads(pickle.dumps(h2.metadata))
    assert md == h2.metadata and md.n_qubits == 8
    with pytest.raises(ValueError, match="kind"):  # read as files are
        q2.StageRecord.from_dict({"name": "x"})


def test_nested_records_are_views(h2):
    # Walking the report copies nothing: a nested record is a view into the
    # report, which it keeps alive.
    r = q2.ProfileReport.from_dict(h2.report.to_dict())
    st = r.phase_b.stages[2]
    assert st.to_dict() == h2.report.to_dict()["phase_b"]["stages"][2]
    del r
    assert st.name == h2.report.phase_b.stages[2].name
    assert st.ir.bytes > 0


def test_compile_text_is_a_keyword(h2_path, tmp_path):
    text = q2.build_program(h2_path, n_est=2, n_trotter=1)
    r = q2.compile(text=text, profile=False)
    assert len(r()) == 2
    with pytest.raises(ValueError, match="text="):
        q2.compile(text, profile=False)  # never guessed to be text
    with pytest.raises(TypeError, match="one of them"):
        q2.compile(h2_path, text=text)
    with pytest.raises(TypeError, match="one of them"):
        q2.compile()
    p = tmp_path / "p.mlir"
    p.write_text(text)
    assert q2.compile(p, profile=False).metadata.n_est == 2


def test_sweep_options_are_typed(tmp_path, h2_path):
    o = q2.SweepOptions(out_dir=tmp_path / "s", molecules={"h2": h2_path})
    # None: SweepSpec's defaults, declared once in C++.
    assert (o.runs, o.jobs, o.wall_s, o.rss_mb, o.poll_s) == \
        (5, 1, 600.0, 4000.0, 0.01)
    assert o.grid == q2._q2.default_h2_grid() and o.modes == ["fixed",
                                                              "dynamic"]
    assert o.molecules == [("h2", os.path.abspath(h2_path), 0)]
    o = q2.SweepOptions(out_dir=str(tmp_path / "s"), molecules=[("h2", h2_path, 15)],
                        grid="2x1,3x3", modes=["fixed"], runs=2, wall_s=30)
    assert o.grid == [(2, 1), (3, 3)] and o.runs == 2 and o.wall_s == 30.0
    with pytest.raises(ValueError, match="runs"):
        q2.SweepOptions(out_dir=tmp_path, molecules={"h2": h2_path}, runs=0)
    with pytest.raises(TypeError):
        q2.SweepOptions(out_dir=tmp_path, molecules={"h2": h2_path},
                        wall_s="fast")
    with pytest.raises(TypeError):
        q2.SweepOptions(tmp_path, {"h2": h2_path})  # keywords only
    assert not os.path.exists(tmp_path / "s")
