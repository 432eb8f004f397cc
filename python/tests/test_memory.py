import os

import pytest

import q2


def test_take_snapshot_self():
    s = q2.take_snapshot("start")
    assert s.label == "start"
    assert s.self is True
    assert s.pid == os.getpid()
    assert s.status.vm_rss_bytes > 0
    assert s.heap.heap_in_use_bytes > 0
    assert "rusage" in s
    assert s.to_dict()["status"]["vm_rss_bytes"] == s.status.vm_rss_bytes


def test_take_snapshot_with_smaps():
    s = q2.take_snapshot("smaps", smaps=True)
    assert s.smaps_rollup["Rss"] > 0


def test_read_proc_status_self_and_pid():
    a = q2.read_proc_status()
    b = q2.read_proc_status(os.getpid())
    assert a.vm_rss_bytes > 0 and b.vm_rss_bytes > 0
    assert set(a.fields()) == {"vm_rss_bytes", "vm_hwm_bytes", "vm_peak_bytes",
                               "vm_size_bytes", "rss_anon_bytes",
                               "rss_file_bytes"}


def test_read_smaps_rollup():
    r = q2.read_smaps_rollup(os.getpid())
    assert r["Rss"] > 0 and "Pss" in r


def test_memory_errors():
    with pytest.raises(ValueError):
        q2.read_proc_status("me")
    with pytest.raises(ValueError):
        q2.read_proc_status(-1)
    with pytest.raises(OSError):
        q2.read_proc_status(2 ** 22 + 12345)  # above pid_max: no such process
    with pytest.raises(ValueError):
        q2.MemoryTimeline(interval_s=0)


def test_memory_timeline_peak():
    with q2.MemoryTimeline(interval_s=0.005) as tl:
        block = bytearray(64 << 20)  # touched: 64 MB resident
        for i in range(0, len(block), 4096):
            block[i] = 1
        tl.sample_now()
        del block
    assert len(tl.samples) >= 2
    assert tl.peak_rss >= max(rss for _, rss in tl.samples) > 0
    assert tl.record.sampler == "thread"
    assert tl.record.interval_ms == 5
    smaps = tl.peak_smaps
    assert smaps is None or smaps["Rss"] > 0
    first = tl.samples[0][1]
    assert tl.peak_rss - first > 32e6


def test_records_pickle_and_copy():
    import copy
    import pickle
    s = q2.read_proc_status()
    assert pickle.loads(pickle.dumps(s)) == s
    assert copy.deepcopy(s) == s
    with pytest.raises(AttributeError):
        s.no_such_field
    with pytest.raises(AttributeError):
        s.vm_rss_bytes = 1
