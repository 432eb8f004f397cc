// The #qpe.metadata attribute (the `qpe` dialect, QPEMetadata.def's keys):
// it round-trips exactly, and a module whose
// metadata is invalid, or does not match @qpe's signature, is rejected when
// parsed (before anything could run it). Regressions: edited n_est, mode or
// n_terms and a mismatched result size crashed or misread memory in Phase C.
// RUN: q2-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// CHECK: module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 1, n_est = 2, n_trotter = 1, n_terms = 2, order = 1, mode = "dynamic", power = "time", unroll = false, base_time = 0.52359877559829882, energy_shift = 1.500000e+00, resolution = 7.500000e-01, words = ["I", "Z"], default_coeffs = [-0.098863969784271615, 0.33333333333333331]>}
module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 1, n_est = 2, n_trotter = 1, n_terms = 2, order = 1, mode = "dynamic", power = "time", unroll = false, base_time = 0.52359877559829882, energy_shift = 1.5, resolution = 0.75, words = ["I", "Z"], default_coeffs = [-0.098863969784271615, 0.33333333333333331]>} {
  func.func @qpe(%c: tensor<2xf64>) -> tensor<4xf64> {
    %z = arith.constant dense<0.0> : tensor<4xf64>
    return %z : tensor<4xf64>
  }
}

// -----

// expected-error @+1 {{n_est must be in [1, 32], got 33}}
module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 1, n_est = 33, n_trotter = 1, n_terms = 1, order = 1, mode = "fixed", power = "time", unroll = false, base_time = 1.0, energy_shift = 0.0, resolution = 0.1, words = ["Z"], default_coeffs = [1.0]>} {
}

// -----

// expected-error @+1 {{a count in the metadata is above 2^32}}
module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 1, n_est = 4294967297, n_trotter = 1, n_terms = 1, order = 1, mode = "fixed", power = "time", unroll = false, base_time = 1.0, energy_shift = 0.0, resolution = 0.1, words = ["Z"], default_coeffs = [1.0]>} {
}

// -----

// expected-error @+1 {{mode must be 'fixed' or 'dynamic', got 'bogus'}}
module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 1, n_est = 1, n_trotter = 1, n_terms = 1, order = 1, mode = "bogus", power = "time", unroll = false, base_time = 1.0, energy_shift = 0.0, resolution = 0.1, words = ["Z"], default_coeffs = [1.0]>} {
}

// -----

// expected-error @+1 {{words has 1 entries, n_terms is 2}}
module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 1, n_est = 1, n_trotter = 1, n_terms = 2, order = 1, mode = "fixed", power = "time", unroll = false, base_time = 1.0, energy_shift = 0.0, resolution = 0.1, words = ["Z"], default_coeffs = [1.0, 2.0]>} {
}

// -----

// expected-error @+1 {{words[0] must be 2 letters from IXYZ}}
module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 2, n_est = 1, n_trotter = 1, n_terms = 1, order = 1, mode = "fixed", power = "time", unroll = false, base_time = 1.0, energy_shift = 0.0, resolution = 0.1, words = ["ZQ"], default_coeffs = [1.0]>} {
}

// -----

// expected-error @+1 {{base_time must be finite and > 0}}
module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 1, n_est = 1, n_trotter = 1, n_terms = 1, order = 1, mode = "fixed", power = "time", unroll = false, base_time = 0x7FF0000000000000, energy_shift = 0.0, resolution = 0.1, words = ["Z"], default_coeffs = [1.0]>} {
}

// -----

// expected-error @+1 {{n_system + n_est = 40 + 30 qubits, above the limit of 62}}
module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 40, n_est = 30, n_trotter = 1, n_terms = 1, order = 1, mode = "fixed", power = "time", unroll = false, base_time = 1.0, energy_shift = 0.0, resolution = 0.1, words = ["ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ"], default_coeffs = [1.0]>} {
}

// -----

// A fixed-mode label on a dynamic program.
module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 1, n_est = 2, n_trotter = 1, n_terms = 1, order = 1, mode = "fixed", power = "time", unroll = false, base_time = 1.0, energy_shift = 0.0, resolution = 0.1, words = ["Z"], default_coeffs = [1.0]>} {
  // expected-error @+1 {{does not match its qpe.metadata (mode fixed, n_terms 1, n_est 2): expected 0 argument(s), got 1}}
  func.func @qpe(%c: tensor<1xf64>) -> tensor<4xf64> {
    %z = arith.constant dense<0.0> : tensor<4xf64>
    return %z : tensor<4xf64>
  }
}

// -----

// n_terms = 1 against a tensor<15xf64> argument.
module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 1, n_est = 2, n_trotter = 1, n_terms = 1, order = 1, mode = "dynamic", power = "time", unroll = false, base_time = 1.0, energy_shift = 0.0, resolution = 0.1, words = ["Z"], default_coeffs = [1.0]>} {
  // expected-error @+1 {{the argument must be a tensor<1xf64> of coefficients}}
  func.func @qpe(%c: tensor<15xf64>) -> tensor<4xf64> {
    %z = arith.constant dense<0.0> : tensor<4xf64>
    return %z : tensor<4xf64>
  }
}

// -----

// @qpe returning tensor<1024xf64> with n_est 3.
module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 1, n_est = 3, n_trotter = 1, n_terms = 1, order = 1, mode = "fixed", power = "time", unroll = false, base_time = 1.0, energy_shift = 0.0, resolution = 0.1, words = ["Z"], default_coeffs = [1.0]>} {
  // expected-error @+1 {{the result must be a tensor<8xf64>}}
  func.func @qpe() -> tensor<1024xf64> {
    %z = arith.constant dense<0.0> : tensor<1024xf64>
    return %z : tensor<1024xf64>
  }
}

// -----

// expected-error @+1 {{has qpe.metadata but no @qpe function}}
module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 1, n_est = 1, n_trotter = 1, n_terms = 1, order = 1, mode = "fixed", power = "time", unroll = false, base_time = 1.0, energy_shift = 0.0, resolution = 0.1, words = ["Z"], default_coeffs = [1.0]>} {
  func.func @other() {
    return
  }
}

// -----

func.func @not_on_a_module() attributes {qpe.metadata = 1 : i64} {
  // expected-error @-1 {{'qpe.metadata' belongs on a builtin.module}}
  return
}

// -----

// The optional fields (q2.qpe/2): a per-wire step table whose largest entry
// is n_trotter, the Trotter bound and the reference energies round-trip.
// CHECK-LABEL: module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 1, n_est = 2, n_trotter = 7,
// CHECK-SAME: trotter_steps = [3, 7], trotter_bound = 1.250000e-04, exact_energy = -1.1372701746571028, hf_energy = -1.1166843870661911>}
module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 1, n_est = 2, n_trotter = 7, n_terms = 1, order = 2, mode = "fixed", power = "time", unroll = false, base_time = 1.0, energy_shift = 0.0, resolution = 0.1, words = ["Z"], default_coeffs = [1.0], trotter_steps = [3, 7], trotter_bound = 1.25e-4, exact_energy = -1.1372701746571028, hf_energy = -1.1166843870661911>} {
  func.func @qpe() -> tensor<4xf64> {
    %z = arith.constant dense<0.0> : tensor<4xf64>
    return %z : tensor<4xf64>
  }
}

// -----

// expected-error @+1 {{n_trotter (3) must be the largest entry of trotter_steps (7)}}
module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 1, n_est = 2, n_trotter = 3, n_terms = 1, order = 2, mode = "fixed", power = "time", unroll = false, base_time = 1.0, energy_shift = 0.0, resolution = 0.1, words = ["Z"], default_coeffs = [1.0], trotter_steps = [3, 7]>} {
}

// -----

// expected-error @+1 {{trotter_steps has 3 entries, n_est is 2}}
module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 1, n_est = 2, n_trotter = 7, n_terms = 1, order = 2, mode = "fixed", power = "time", unroll = false, base_time = 1.0, energy_shift = 0.0, resolution = 0.1, words = ["Z"], default_coeffs = [1.0], trotter_steps = [3, 7, 7]>} {
}

// -----

// expected-error @+1 {{trotter_steps[0] must be in [1, 4294967295]}}
module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 1, n_est = 2, n_trotter = 7, n_terms = 1, order = 2, mode = "fixed", power = "time", unroll = false, base_time = 1.0, energy_shift = 0.0, resolution = 0.1, words = ["Z"], default_coeffs = [1.0], trotter_steps = [0, 7]>} {
}

// -----

// expected-error @+1 {{trotter_bound must be finite and >= 0}}
module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 1, n_est = 2, n_trotter = 7, n_terms = 1, order = 2, mode = "fixed", power = "time", unroll = false, base_time = 1.0, energy_shift = 0.0, resolution = 0.1, words = ["Z"], default_coeffs = [1.0], trotter_bound = -1.0>} {
}

// -----

// The keys are QPEMetadata.def's: an unknown, a repeated or a missing one is
// named.
// expected-error @+1 {{unknown QPE metadata key 'n_system_qubits'}}
module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system_qubits = 1>} {
}

// -----

// expected-error @+1 {{'n_est' given twice}}
module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_est = 1, n_est = 2>} {
}

// -----

// expected-error @+1 {{QPE metadata without 'default_coeffs'}}
module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 1, n_est = 1, n_trotter = 1, n_terms = 1, order = 1, mode = "fixed", power = "time", unroll = false, base_time = 1.0, energy_shift = 0.0, resolution = 0.1, words = ["Z"]>} {
}

// -----

// The keys in another order parse to the same attribute (printed in the
// .def's order).
// CHECK-LABEL: module attributes {qpe.metadata = #qpe.metadata<molecule = "R", n_system = 1, n_est = 1, n_trotter = 1, n_terms = 1, order = 1, mode = "fixed", power = "repeat", unroll = true, base_time = 1.000000e+00, energy_shift = 0.000000e+00, resolution = 1.000000e-01, words = ["Z"], default_coeffs = [1.000000e+00]>}
module attributes {qpe.metadata = #qpe.metadata<words = ["Z"], default_coeffs = [1.0], molecule = "R", n_system = 1, n_est = 1, n_trotter = 1, n_terms = 1, order = 1, mode = "fixed", power = "repeat", unroll = true, base_time = 1.0, energy_shift = 0.0, resolution = 0.1>} {
  func.func @qpe() -> tensor<2xf64> {
    %z = arith.constant dense<0.0> : tensor<2xf64>
    return %z : tensor<2xf64>
  }
}

// -----

// The spelling before the qpe dialect is refused with where it went.
// expected-error @+1 {{'#quantum.qpe' is now '#qpe.metadata', under the module attribute 'qpe.metadata'}}
module attributes {quantum.qpe = #quantum.qpe<molecule = "H2", n_system = 1>} {
}
