module attributes {qpe.metadata = #qpe.metadata<molecule = "T", n_system = 1, n_est = 1, n_trotter = 1, n_terms = 2, order = 1, mode = "dynamic", power = "time", unroll = false, base_time = 1.0, energy_shift = 0.0, resolution = 0.1, words = ["I", "Z"], default_coeffs = [0.5, 0.25]>} {
  func.func @qpe(%c: tensor<2xf64>) -> tensor<2xf64> attributes {llvm.emit_c_interface} {
    %d = tensor.cast %c : tensor<2xf64> to tensor<?xf64>
    %r = quantum.alloc(2) : !quantum.reg
    %q0 = quantum.extract %r[0] : !quantum.reg -> !quantum.bit
    %q1 = quantum.extract %r[1] : !quantum.reg -> !quantum.bit
    %o:2 = quantum.gate_table %q0, %q1 params(%d : tensor<?xf64>) kinds ["RY", "pauli_rot"] words "Z" records [0, 0, 0, 1, 0, 0, 1,  1, 0, 2, 1, 0, 0, 1] : !quantum.bit, !quantum.bit
    %r1 = quantum.insert %r[0], %o#0 : !quantum.reg, !quantum.bit
    %r2 = quantum.insert %r1[1], %o#1 : !quantum.reg, !quantum.bit
    %p = quantum.probs reg %r2[1, 1] : tensor<2xf64>
    quantum.dealloc %r2 : !quantum.reg
    return %p : tensor<2xf64>
  }
}
