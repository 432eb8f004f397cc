// quantum.power with a huge count: repeated squaring loses unitarity in
// proportion to the count (regression: prob_sum 0.99991 at 2^40, 0.919 at
// 2^50, 0.5 from 2^61, exit 0 with a decoded energy). Counts above 2^32
// are refused by the runtime; below, the result is exact to 1e-6 or the
// run warns.
// REQUIRES: q2-runtime
// RUN: rm -rf %t && mkdir -p %t
// RUN: sed -e 's/COUNT/4294967296/' %s > %t/limit.mlir
// RUN: sed -e 's/COUNT/4294967297/' %s > %t/above.mlir
// RUN: sed -e 's/COUNT/1099511627776/' %s > %t/p40.mlir
// RUN: q2-opt --qpe-pipeline --run 1 %t/limit.mlir -o %t/a.o 2>&1 | FileCheck %s --check-prefix=LIMIT
// LIMIT-NOT: warning
// At the limit this block loses 6e-7 (linear in the count: 3.7e-8 at 2^28,
// 1.5e-7 at 2^30), within the 1e-6 tolerance: no warning.
// LIMIT: [default] prob_sum 0.99999
// LIMIT-NOT: warning
// RUN: not q2-opt --qpe-pipeline --run 1 %t/above.mlir -o %t/a.o 2>&1 | FileCheck %s --check-prefix=ABOVE
// RUN: not q2-opt --qpe-pipeline --run 1 %t/p40.mlir -o %t/a.o 2>&1 | FileCheck %s --check-prefix=P40
// ABOVE: error: q2-jit: runtime error: q2_rt_block_begin: count 4294967297 is above 4294967296 (2^32), the largest power the runtime computes exactly
// P40: error: q2-jit: runtime error: q2_rt_block_begin: count 1099511627776 is above 4294967296 (2^32)
module attributes {qpe.metadata = #qpe.metadata<molecule = "T", n_system = 2, n_est = 1, n_trotter = 1, n_terms = 2, order = 1, mode = "fixed", power = "repeat", unroll = false, base_time = 1.0, energy_shift = 0.0, resolution = 0.1, words = ["II", "ZX"], default_coeffs = [0.5, 0.25]>} {
  func.func @qpe() -> tensor<2xf64> attributes {llvm.emit_c_interface} {
    %n = arith.constant COUNT : index
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
