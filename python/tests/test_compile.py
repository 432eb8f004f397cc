import math
import os
import threading

import numpy as np
import pytest

import q2

STAGES = ["Input", "HLOLowering", "QuantumLowering", "Bufferization",
          "LLVMDialect", "LLVMIR", "ObjectCode"]


def test_compile_profile_records(h2):
    names = [s.name for s in h2.stages]
    # A Hamiltonian input: Phase A's stages first, as in q2-opt's report.
    assert names[:len(STAGES) + 2] == ["Hamiltonian", "Program"] + STAGES
    assert h2.report.phase_a.format == "fcidump"
    for s in h2.stages:
        assert s.wall_s >= 0 and s.cpu_s >= 0
        assert s.to_dict()["name"] == s.name
    assert h2.stages[names.index("HLOLowering")].ir.ops > 0
    assert h2.compile_s > 0
    assert h2.report.schema == "q2.profile/3"
    assert h2.report.parameters.n_terms == 15
    assert "HLOLowering" in h2.stage_table()
    assert h2.object[:4] == b"\x7fELF"
    md = h2.metadata
    assert (md.n_est, md.n_trotter, md.mode, md.n_terms) == (4, 2, "dynamic", 15)
    assert md.n_qubits == 8 and md.n_coeff_args == 15
    # The error budget of the energies (q2.qpe/2): exact and HF energies of
    # H2 STO-3G at 0.7414 A, and the Trotter bound of the 2 steps asked for.
    assert md.format == "q2.qpe/2"
    assert md.exact_energy == pytest.approx(-1.137270, abs=1e-5)
    assert md.hf_energy == pytest.approx(-1.116684, abs=1e-5)
    assert md.trotter_bound > 0


def test_call_defaults_and_coeffs(h2):
    probs, energy = h2()
    assert isinstance(probs, np.ndarray) and probs.dtype == np.float64
    assert probs.shape == (16,)
    assert probs.sum() == pytest.approx(1.0, abs=1e-9)
    assert math.isfinite(energy)
    c = np.array(h2.circuit.default_coeffs)
    p2, e2 = h2(c)
    assert np.allclose(p2, probs) and e2 == energy
    p3, _ = h2(list(c * 1.01))  # lists are converted
    assert p3.sum() == pytest.approx(1.0, abs=1e-9)
    out = np.empty(16)
    p4, _ = h2(c, out=out)
    assert p4 is out or np.shares_memory(p4, out)


def test_energy_says_how_far_to_trust_it(h2):
    # The energy is a float carrying its resolution; for the default
    # coefficients also the exact energy and the error in resolutions.
    _, e = h2()
    assert isinstance(e, float) and isinstance(e, q2.Energy)
    md = h2.metadata
    assert e.resolution == md.resolution and e.exact == md.exact_energy
    assert e.error == pytest.approx((e - md.exact_energy) / md.resolution)
    text = str(e)
    assert "resolution %.6f Ha" % md.resolution in text
    assert "exact %.6f Ha" % md.exact_energy in text
    assert "error %+.2f resolutions" % e.error in text
    assert repr(e).startswith("Energy(") and "%.6f" % e in repr(e)
    # Other coefficients: the program's exact energy is not theirs.
    _, e2 = h2(np.array(h2.circuit.default_coeffs) * 1.01)
    assert e2.exact is None and e2.error is None
    assert "exact" not in str(e2) and "resolution" in str(e2)
    assert float(e + 0) == float(e)  # arithmetic gives plain floats
    import pickle
    assert pickle.loads(pickle.dumps(e)).exact == e.exact


def test_call_errors(h2):
    with pytest.raises(ValueError):
        h2(np.ones(3))
    with pytest.raises(ValueError):
        h2(np.ones((3, 5)))
    with pytest.raises(ValueError):
        h2([])
    with pytest.raises(ValueError):
        h2(None, out=np.empty(3))
    with pytest.raises(TypeError):
        h2(None, out=np.empty(16, dtype=np.float32))


@pytest.mark.skipif(os.environ.get("Q2_ASAN") == "1",
                    reason="ASan's quarantine keeps freed memory resident")
def test_thousand_calls_no_rss_growth(h2):
    c = np.array(h2.circuit.default_coeffs)
    for _ in range(10):
        h2(c)
    rss10 = q2.read_proc_status().vm_rss_bytes
    for i in range(1000):
        probs, energy = h2(c * (1 + 1e-4 * (i % 5)))
    growth = q2.read_proc_status().vm_rss_bytes - rss10
    assert growth < 1_000_000, growth


def test_call_releases_the_gil(h2):
    # Another Python thread runs while calls are in progress.
    c = np.array(h2.circuit.default_coeffs)
    stop = threading.Event()
    ticks = [0]

    def spin():
        while not stop.is_set():
            ticks[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        for _ in range(200):
            h2(c)
    finally:
        stop.set()
        t.join()
    assert ticks[0] > 0


def test_compile_fixed_program_text_and_file(tmp_path, h2_path):
    text = q2.build_program(h2_path, n_est=3, n_trotter=1, mode="fixed")
    assert "qpe.metadata = #qpe.metadata<" in text
    r = q2.compile(text=text, profile=False)
    assert r.report is None and r.stages == []
    probs, energy = r()
    assert probs.shape == (8,)
    with pytest.raises(ValueError):
        r(np.ones(15))  # a fixed program takes no coefficients
    f = tmp_path / "h2.mlir"
    f.write_text(text)
    r2 = q2.compile(str(f), profile=False, opt_level=1, keep_native_pauli=True)
    assert np.allclose(r2()[0], probs, atol=1e-9)


def test_compile_errors(tmp_path, h2_path):
    with pytest.raises(TypeError):
        q2.compile(h2_path, n_est=2, no_such_option=True)
    with pytest.raises(ValueError):
        q2.compile(h2_path, n_est=2, opt_level=7)
    with pytest.raises(ValueError):
        q2.compile(h2_path, n_est=2, mode="sometimes")
    with pytest.raises(ValueError, match="power must be 'time' or 'repeat'"):
        q2.compile(h2_path, n_est=2, power="often")
    with pytest.raises(FileNotFoundError):
        q2.compile(str(tmp_path / "missing.FCIDUMP"))
    with pytest.raises(RuntimeError):
        q2.compile(text="module {\n}\n")  # not a QPE program


def test_ir_dir_and_analyze_ir_stages(tmp_path, h2_path):
    d = tmp_path / "ir"
    r = q2.compile(h2_path, n_est=3, n_trotter=1, ir_dir=d)
    rows = q2.analyze_ir_stages(d)
    assert [row[0] for row in rows] == STAGES
    files = sorted(os.listdir(d))
    assert len(files) == 7
    by_stage = {s.name: s for s in r.stages}
    for stage, nbytes, lines, ops in rows:
        assert nbytes > 0
        if stage != "ObjectCode":
            assert lines > 0 and ops > 0
        # The report's ir of the same compile says the same.
        assert by_stage[stage].ir.bytes == nbytes
        assert by_stage[stage].ir.lines == lines
        if stage != "ObjectCode":
            assert by_stage[stage].ir.ops == ops
    with pytest.raises(OSError):
        q2.analyze_ir_stages(tmp_path / "none")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "1_HLOLowering.mlir").write_text("this is not mlir")
    with pytest.raises(ValueError):
        q2.analyze_ir_stages(bad)


def test_pipeline_unroll_and_program_unroll(h2_path):
    a = q2.compile(h2_path, n_est=2, profile=False)
    b = q2.compile(h2_path, n_est=2, profile=False, unroll=True)
    c = q2.compile(h2_path, n_est=2, profile=False, unroll_program=True)
    assert b.report is None
    for r in (b, c):
        assert np.allclose(r()[0], a()[0], atol=1e-9)
    assert c.metadata.unroll is True


def test_program_options_are_q2_qpes_flags(tmp_path, h2_path):
    # One request (ProgramRequest.def): the keywords, their defaults, and
    # the program they build are q2-qpe's, window/base time/shift included.
    opts = {name: default for name, default, _ in q2.program_options()}
    assert list(opts) == ["n_est", "n_trotter", "mode", "order", "power",
                          "unroll_program", "resolution", "window",
                          "base_time", "energy_shift"]
    assert opts["order"] == 2 and opts["power"] == "repeat"
    assert opts["mode"] == "dynamic" and opts["resolution"] == 3e-3
    assert opts["n_est"] is None and opts["window"] is None
    import subprocess
    qpe = q2._bin("q2-qpe")
    out = tmp_path / "p.mlir"
    subprocess.run([qpe, h2_path, "--n-est", "3", "--n-trotter", "2",
                    "--order", "1", "--power", "time", "--window=-2.5,0.5",
                    "--energy-shift", "0.25", "-o", str(out)], check=True)
    text = q2.build_program(h2_path, n_est=3, n_trotter=2, order=1,
                            power="time", window=(-2.5, 0.5),
                            energy_shift=0.25)
    assert text == out.read_text()
    subprocess.run([qpe, h2_path, "--n-est", "3", "--base-time", "0.75",
                    "-o", str(out)], check=True)
    assert q2.build_program(h2_path, n_est=3, base_time=0.75) == \
        out.read_text()
    r = q2.compile(h2_path, n_est=3, n_trotter=1, base_time=0.75,
                   profile=False)
    assert r.metadata.base_time == 0.75


def test_program_option_refusals(h2_path):
    with pytest.raises(TypeError, match="n_est must be an int"):
        q2.build_program(h2_path, n_est="3")
    with pytest.raises(TypeError, match="unknown program option"):
        q2.build_program(h2_path, n_est=3, no_such=1)
    with pytest.raises(ValueError, match="Trotter order must be 1 or 2"):
        q2.build_program(h2_path, order=3)
    with pytest.raises(ValueError, match="window needs finite lo,hi"):
        q2.build_program(h2_path, window=(1.0, 0.0))
    with pytest.raises(ValueError, match="base_time must be finite"):
        q2.compile(h2_path, base_time=float("inf"))
    # A program is compiled as it is: program options are refused.
    text = q2.build_program(h2_path, n_est=2, n_trotter=1)
    with pytest.raises(ValueError, match="n_est act"):
        q2.compile(text=text, n_est=3)
