module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 1, n_est = 4294967297, n_trotter = 1, n_terms = 1, order = 1, mode = "fixed", power = "time", unroll = false, base_time = 1.0, energy_shift = 0.0, resolution = 0.1, words = ["Z"], default_coeffs = [1.0]>} {
}
