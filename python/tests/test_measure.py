import json
import os
import subprocess
import sys

import pytest

import q2


def q2_profile():
    return os.path.join(q2._config.BIN_DIR, "q2-profile")


def test_measure_command_record(tmp_path):
    r = q2.measure_command(["/bin/sh", "-c", "echo hi; exit 3"],
                           tmp_path / "ev", wall_s=30, rss_mb=500)
    assert r.reason == "exit"
    assert r.exit_code == 3
    assert r.wall_s > 0
    assert r.command == ["/bin/sh", "-c", "echo hi; exit 3"]
    assert (tmp_path / "ev" / "stdout.txt").read_text() == "hi\n"
    on_disk = json.loads((tmp_path / "ev" / "record.json").read_text())
    assert r.to_dict() == on_disk


def test_measure_command_same_fields_as_tool(tmp_path):
    subprocess.run([q2_profile(), "measure", "--out", str(tmp_path / "tool"),
                    "--wall-s", "30", "--rss-mb", "500", "--quiet", "--",
                    "/bin/true"], check=True)
    tool = json.loads((tmp_path / "tool" / "record.json").read_text())
    r = q2.measure_command(["/bin/true"], tmp_path / "py", wall_s=30,
                           rss_mb=500)
    assert r.fields() == list(tool)


def test_measure_command_budget_kill(tmp_path):
    r = q2.measure_command(["/bin/sleep", "30"], tmp_path / "ev", wall_s=0.3,
                           rss_mb=500, kill_grace_s=0.2)
    assert r.reason == "wall_budget"
    assert r.exit_code is None


def test_measure_command_env_and_cwd(tmp_path):
    r = q2.measure_command(["/bin/sh", "-c", "pwd; echo $Q2X"],
                           tmp_path / "ev", cwd=tmp_path, env={"Q2X": "y"})
    out = (tmp_path / "ev" / "stdout.txt").read_text().split()
    assert out == [str(tmp_path), "y"]
    assert r.env == {"Q2X": "y"}  # a string map is a dict


def test_measure_command_refusals(tmp_path):
    (tmp_path / "exists").mkdir()
    with pytest.raises(FileExistsError):
        q2.measure_command(["/bin/true"], tmp_path / "exists")
    with pytest.raises(ValueError):
        q2.measure_command(["/bin/true"], tmp_path / "a", wall_s=0)
    with pytest.raises(ValueError):
        q2.measure_command(["/bin/true"], tmp_path / "a", rss_mb=float("nan"))
    with pytest.raises(ValueError):
        q2.measure_command([], tmp_path / "a")
    with pytest.raises(ValueError):
        q2.measure_command("/bin/true", tmp_path / "a")
    with pytest.raises(ValueError):
        q2.measure_command(["/bin/true"], tmp_path / "a", env={"A=B": "c"})
    with pytest.raises(FileNotFoundError):
        q2.measure_command(["no-such-program-q2"], tmp_path / "a")
    with pytest.raises(FileNotFoundError):
        q2.measure_command(["/bin/true"], tmp_path / "missing" / "a")
    with pytest.raises(NotADirectoryError):
        q2.measure_command(["/bin/true"], tmp_path / "a",
                           cwd=tmp_path / "nowhere")
    # Nothing was created by a refusal.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exists"]


def test_measure_command_ctrl_c_stops_the_tree(tmp_path):
    import signal
    import threading
    threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    with pytest.raises(KeyboardInterrupt):
        q2.measure_command(["/bin/sleep", "30"], tmp_path / "ev", wall_s=60,
                           rss_mb=500, kill_grace_s=0.2)
    rec = json.loads((tmp_path / "ev" / "record.json").read_text())
    assert rec["reason"] == "cancelled" and rec["cancelled_by"] == "SIGINT"
