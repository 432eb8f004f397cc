"""Issue 28 regressions reachable from Python: bad coefficients, dynamic
gate-table indices, per-circuit limits, sizes checked before building, and
the sweep options' value errors."""
import math
import os
import warnings

import numpy as np
import pytest

import q2

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LIH = os.path.join(ROOT, "examples", "hamiltonians", "lih_1.595_2e3o.FCIDUMP")

GATE_TABLE = """
module attributes {qpe.metadata = #qpe.metadata<molecule = "T", n_system = 1, n_est = 1, n_trotter = 1, n_terms = 2, order = 1, mode = "dynamic", power = "time", unroll = false, base_time = 1.0, energy_shift = 0.0, resolution = 0.1, words = ["I", "Z"], default_coeffs = [0.5, 0.25]>} {
  func.func @qpe(%c: tensor<2xf64>) -> tensor<2xf64> attributes {llvm.emit_c_interface} {
    %d = tensor.cast %c : tensor<2xf64> to tensor<?xf64>
    %r = quantum.alloc(2) : !quantum.reg
    %q0 = quantum.extract %r[0] : !quantum.reg -> !quantum.bit
    %q1 = quantum.extract %r[1] : !quantum.reg -> !quantum.bit
    %o:2 = quantum.gate_table %q0, %q1 params(%d : tensor<?xf64>) kinds ["RY", "pauli_rot"] words "Z" records [0, 0, 0, 1, 0, 0, 1,  1, 0, PARAM, 1, 0, 0, 1] : !quantum.bit, !quantum.bit
    %r1 = quantum.insert %r[0], %o#0 : !quantum.reg, !quantum.bit
    %r2 = quantum.insert %r1[1], %o#1 : !quantum.reg, !quantum.bit
    %p = quantum.probs reg %r2[1, 1] : tensor<2xf64>
    quantum.dealloc %r2 : !quantum.reg
    return %p : tensor<2xf64>
  }
}
"""


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), None])
def test_non_finite_coefficients_are_value_errors(h2, bad):
    # Regression: NaN probabilities and a finite energy, no exception.
    with pytest.raises(ValueError, match="finite"):
        h2([bad] * 15)
    c = list(h2.circuit.default_coeffs)
    c[3] = bad
    with pytest.raises(ValueError, match="coefficient 3"):
        h2(c)
    probs, e = h2()  # the circuit is still usable
    assert probs.sum() == pytest.approx(1.0, abs=1e-9) and math.isfinite(e)


@pytest.mark.parametrize("level", [0, 2])
def test_dynamic_gate_table_index_is_a_runtime_error(level):
    # Regression: at opt_level 0 this segfaulted the interpreter.
    c = q2.compile(text=GATE_TABLE.replace("PARAM", "2"), profile=False,
                   opt_level=level)
    with pytest.raises(RuntimeError, match="parameter index 2 is out of "
                                           "range for 2 parameter"):
        c()
    ok = q2.compile(text=GATE_TABLE.replace("PARAM", "1"), profile=False,
                    opt_level=level)
    probs, _ = ok()
    assert probs.sum() == pytest.approx(1.0, abs=1e-12)


def test_max_qubits_stays_per_circuit(h2_path):
    # Regression: compiling a second circuit with max_qubits=5 made an
    # earlier 7-qubit one fail (the runtime's limit is process-wide).
    big = q2.compile(h2_path, n_est=3, n_trotter=1, profile=False)
    assert big.metadata.n_qubits == 7
    small = q2.compile(text=GATE_TABLE.replace("PARAM", "1"), profile=False,
                       max_qubits=5)
    probs, _ = big()
    assert probs.sum() == pytest.approx(1.0, abs=1e-9)
    small()
    # ... and the small limit still holds for its own circuit.
    tight = q2.compile(h2_path, n_est=3, n_trotter=1, profile=False,
                       max_qubits=7)
    tight()
    with pytest.raises(ValueError):
        q2.compile(h2_path, n_est=3, n_trotter=1, profile=False,
                   max_qubits=-1)


def test_threads_stay_per_circuit(h2_path):
    a = q2.compile(h2_path, n_est=3, n_trotter=1, profile=False)
    b = q2.compile(h2_path, n_est=3, n_trotter=1, profile=False)
    a.circuit.threads = 1
    b.circuit.threads = 2
    assert a.circuit.threads == 1
    a()
    assert a.circuit.threads == 1 and b.circuit.threads == 2


def test_unrolled_program_size_is_checked_first(h2_path):
    # Regression: n_est 14, n_trotter 50 unrolled died in Operation::create
    # after ~30 s under a 6 GB limit; now refused before building.
    with pytest.raises(Exception, match="--unroll would emit 819150 Trotter "
                                        "steps.*the limit is"):
        q2.compile(h2_path, n_est=14, n_trotter=50, unroll_program=True,
                   profile=False)


def test_sweep_options_are_value_errors(tmp_path):
    with pytest.raises(ValueError):
        q2.run_sweep(tmp_path / "a", runs=-1)
    with pytest.raises(ValueError):
        q2.run_sweep(tmp_path / "b", jobs=-2)
    with pytest.raises(ValueError, match="grid point 0x1"):
        q2.run_sweep(tmp_path / "c", grid=[(0, 1)])
    with pytest.raises(ValueError):
        q2.run_sweep(tmp_path / "d", grid=[(-1, 1)])
    assert not os.path.exists(tmp_path / "c")
