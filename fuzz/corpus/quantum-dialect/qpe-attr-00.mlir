// The #qpe.metadata attribute: it round-trips exactly, and a module whose
// metadata is invalid, or does not match @qpe's signature, is rejected when
// parsed (before anything could run it). Regressions: edited n_est, mode or
// n_terms and a mismatched result size crashed or misread memory in Phase C.

module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 1, n_est = 2, n_trotter = 1, n_terms = 2, order = 1, mode = "dynamic", power = "time", unroll = false, base_time = 0.52359877559829882, energy_shift = 1.5, resolution = 0.75, words = ["I", "Z"], default_coeffs = [-0.098863969784271615, 0.33333333333333331]>} {
  func.func @qpe(%c: tensor<2xf64>) -> tensor<4xf64> {
    %z = arith.constant dense<0.0> : tensor<4xf64>
    return %z : tensor<4xf64>
  }
}
