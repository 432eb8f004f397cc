func.func @memory(%i: i64) {
  %r = quantum.alloc(4) : !quantum.reg
  %q0 = quantum.extract %r[3] : !quantum.reg -> !quantum.bit
  %qi = quantum.extract %r[%i] : !quantum.reg -> !quantum.bit
  %r1 = quantum.insert %r[3], %q0 : !quantum.reg, !quantum.bit
  %r2 = quantum.insert %r1[%i], %qi : !quantum.reg, !quantum.bit
  quantum.dealloc %r2 : !quantum.reg
  return
}

func.func @gates(%q0: !quantum.bit, %q1: !quantum.bit, %q2: !quantum.bit, %t: f64) {
  %a = quantum.custom "H"() %q0 : !quantum.bit
  %b:2 = quantum.custom "CNOT"() %a, %q1 : !quantum.bit, !quantum.bit
  %c = quantum.custom "RZ"(%t) %b#0 adj : !quantum.bit
  %d, %dc:2 = quantum.custom "PhaseShift"(%t) %c ctrls(%b#1, %q2) : !quantum.bit ctrls !quantum.bit, !quantum.bit
  %e, %ec = quantum.custom "S"() %d ctrls(%dc#0) adj : !quantum.bit ctrls !quantum.bit
  %f:2 = quantum.custom "SWAP"() %e, %ec : !quantum.bit, !quantum.bit
  return
}

func.func @pauli_rot(%q0: !quantum.bit, %q1: !quantum.bit, %q2: !quantum.bit, %t: f64) {
  %a:2 = quantum.pauli_rot "XY"(%t) %q0, %q1 : !quantum.bit, !quantum.bit
  %b:2, %c = quantum.pauli_rot "ZI"(%t) %a#0, %a#1 ctrls(%q2) adj : !quantum.bit, !quantum.bit ctrls !quantum.bit
  return
}

func.func @measurement(%q0: !quantum.bit, %q1: !quantum.bit, %buf: memref<4xf64>) -> tensor<4xf64> {
  %m, %q = quantum.measure %q0 : i1, !quantum.bit
  %p = quantum.probs %q, %q1 : tensor<4xf64>
  quantum.probs %q, %q1 in(%buf : memref<4xf64>)
  return %p : tensor<4xf64>
}

func.func @probs_range(%buf: memref<8xf64>) -> tensor<4xf64> {
  %r = quantum.alloc(6) : !quantum.reg
  %p = quantum.probs reg %r[4, 2] : tensor<4xf64>
  quantum.probs reg %r[0, 3] in(%buf : memref<8xf64>)
  quantum.dealloc %r : !quantum.reg
  return %p : tensor<4xf64>
}

func.func @gate_table(%q0: !quantum.bit, %q1: !quantum.bit, %q2: !quantum.bit, %p: tensor<1xf64>, %m: memref<?xf64>) -> !quantum.bit {
  %o:3 = quantum.gate_table %q0, %q1, %q2 params(%p : tensor<1xf64>) kinds ["H", "X", "pauli_rot"] words "XZ"
           records [0, 0, -1, 1, 0, 0, 0,  1, 0, -1, 1, 1, 0, 1, 0,  2, 0, 0, 2, 1, 0, 1, 2, 0]
           : !quantum.bit, !quantum.bit, !quantum.bit
  %a = quantum.gate_table %o#0 params(%m : memref<?xf64>) kinds ["RZ"] records [0, 1, 0, 1, 0, 0, 0] : !quantum.bit
  %b = quantum.gate_table %a kinds ["H"] records [0, 0, -1, 1, 0, 0, 0] : !quantum.bit
  return %b : !quantum.bit
}
