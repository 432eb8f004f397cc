module attributes {qpe.metadata = #qpe.metadata<molecule = "T", n_system = 2, n_est = 1, n_trotter = 1, n_terms = 2, order = 1, mode = "fixed", power = "repeat", unroll = false, base_time = 1.0, energy_shift = 0.0, resolution = 0.1, words = ["II", "ZX"], default_coeffs = [0.5, 0.25]>} {
  func.func @qpe() -> tensor<2xf64> attributes {llvm.emit_c_interface} {
    %n = arith.constant 8 : index
    %t = arith.constant 0.7 : f64
    %s = arith.constant 0.3 : f64
    %r = quantum.alloc(3) : !quantum.reg
    %a = quantum.extract %r[0] : !quantum.reg -> !quantum.bit
    %b = quantum.extract %r[1] : !quantum.reg -> !quantum.bit
    %c = quantum.extract %r[2] : !quantum.reg -> !quantum.bit
    %c1 = quantum.custom "H"() %c : !quantum.bit
    %o:3 = quantum.power %n qubits(%c1, %a, %b) : !quantum.bit, !quantum.bit, !quantum.bit {
    ^bb0(%x: !quantum.bit, %y: !quantum.bit, %z: !quantum.bit):
      %p:2, %px = quantum.pauli_rot "ZX"(%t) %y, %z ctrls(%x) : !quantum.bit, !quantum.bit ctrls !quantum.bit
      %q:2, %qx = quantum.pauli_rot "YY"(%s) %p#0, %p#1 ctrls(%px) : !quantum.bit, !quantum.bit ctrls !quantum.bit
      quantum.yield %qx, %q#0, %q#1 : !quantum.bit, !quantum.bit, !quantum.bit
    }
    %r1 = quantum.insert %r[0], %o#1 : !quantum.reg, !quantum.bit
    %r2 = quantum.insert %r1[1], %o#2 : !quantum.reg, !quantum.bit
    %r3 = quantum.insert %r2[2], %o#0 : !quantum.reg, !quantum.bit
    %p = quantum.probs reg %r3[2, 1] : tensor<2xf64>
    quantum.dealloc %r3 : !quantum.reg
    return %p : tensor<2xf64>
  }
}
