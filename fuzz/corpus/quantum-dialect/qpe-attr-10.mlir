// @qpe returning tensor<1024xf64> with n_est 3.
module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 1, n_est = 3, n_trotter = 1, n_terms = 1, order = 1, mode = "fixed", power = "time", unroll = false, base_time = 1.0, energy_shift = 0.0, resolution = 0.1, words = ["Z"], default_coeffs = [1.0]>} {
  func.func @qpe() -> tensor<1024xf64> {
    %z = arith.constant dense<0.0> : tensor<1024xf64>
    return %z : tensor<1024xf64>
  }
}
