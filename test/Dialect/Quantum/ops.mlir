// Round trip: print -> parse -> print is stable, in the custom and the
// generic form.
// RUN: q2-opt %s | q2-opt | FileCheck %s
// RUN: q2-opt %s --mlir-print-op-generic | q2-opt | FileCheck %s
// RUN: q2-opt %s | q2-opt --mlir-print-op-generic | q2-opt | FileCheck %s
// RUN: q2-opt %s > %t.1.mlir && q2-opt %t.1.mlir > %t.2.mlir && diff %t.1.mlir %t.2.mlir

// CHECK-LABEL: func.func @memory
func.func @memory(%i: i64) {
  // CHECK: %[[R:.*]] = quantum.alloc(4) : !quantum.reg
  %r = quantum.alloc(4) : !quantum.reg
  // CHECK: %[[Q0:.*]] = quantum.extract %[[R]][3] : !quantum.reg -> !quantum.bit
  %q0 = quantum.extract %r[3] : !quantum.reg -> !quantum.bit
  // CHECK: %[[QI:.*]] = quantum.extract %[[R]][%{{.*}}] : !quantum.reg -> !quantum.bit
  %qi = quantum.extract %r[%i] : !quantum.reg -> !quantum.bit
  // CHECK: %[[R1:.*]] = quantum.insert %[[R]][3], %[[Q0]] : !quantum.reg, !quantum.bit
  %r1 = quantum.insert %r[3], %q0 : !quantum.reg, !quantum.bit
  // CHECK: %[[R2:.*]] = quantum.insert %[[R1]][%{{.*}}], %[[QI]] : !quantum.reg, !quantum.bit
  %r2 = quantum.insert %r1[%i], %qi : !quantum.reg, !quantum.bit
  // CHECK: quantum.dealloc %[[R2]] : !quantum.reg
  quantum.dealloc %r2 : !quantum.reg
  return
}

// CHECK-LABEL: func.func @gates
func.func @gates(%q0: !quantum.bit, %q1: !quantum.bit, %q2: !quantum.bit, %t: f64) {
  // CHECK: quantum.custom "H"() %{{.*}} : !quantum.bit
  %a = quantum.custom "H"() %q0 : !quantum.bit
  // CHECK: quantum.custom "CNOT"() %{{.*}}, %{{.*}} : !quantum.bit, !quantum.bit
  %b:2 = quantum.custom "CNOT"() %a, %q1 : !quantum.bit, !quantum.bit
  // CHECK: quantum.custom "RZ"(%{{.*}}) %{{.*}} adj : !quantum.bit
  %c = quantum.custom "RZ"(%t) %b#0 adj : !quantum.bit
  // CHECK: quantum.custom "PhaseShift"(%{{.*}}) %{{.*}} ctrls(%{{.*}}, %{{.*}}) : !quantum.bit ctrls !quantum.bit, !quantum.bit
  %d, %dc:2 = quantum.custom "PhaseShift"(%t) %c ctrls(%b#1, %q2) : !quantum.bit ctrls !quantum.bit, !quantum.bit
  // CHECK: quantum.custom "S"() %{{.*}} ctrls(%{{.*}}) adj : !quantum.bit ctrls !quantum.bit
  %e, %ec = quantum.custom "S"() %d ctrls(%dc#0) adj : !quantum.bit ctrls !quantum.bit
  // CHECK: quantum.custom "SWAP"() %{{.*}}, %{{.*}} : !quantum.bit, !quantum.bit
  %f:2 = quantum.custom "SWAP"() %e, %ec : !quantum.bit, !quantum.bit
  return
}

// CHECK-LABEL: func.func @pauli_rot
func.func @pauli_rot(%q0: !quantum.bit, %q1: !quantum.bit, %q2: !quantum.bit, %t: f64) {
  // CHECK: quantum.pauli_rot "XY"(%{{.*}}) %{{.*}}, %{{.*}} : !quantum.bit, !quantum.bit
  %a:2 = quantum.pauli_rot "XY"(%t) %q0, %q1 : !quantum.bit, !quantum.bit
  // CHECK: quantum.pauli_rot "ZI"(%{{.*}}) %{{.*}}, %{{.*}} ctrls(%{{.*}}) adj : !quantum.bit, !quantum.bit ctrls !quantum.bit
  %b:2, %c = quantum.pauli_rot "ZI"(%t) %a#0, %a#1 ctrls(%q2) adj : !quantum.bit, !quantum.bit ctrls !quantum.bit
  return
}

// CHECK-LABEL: func.func @measurement
func.func @measurement(%q0: !quantum.bit, %q1: !quantum.bit, %buf: memref<4xf64>) -> tensor<4xf64> {
  // CHECK: %{{.*}}, %{{.*}} = quantum.measure %{{.*}} : i1, !quantum.bit
  %m, %q = quantum.measure %q0 : i1, !quantum.bit
  // CHECK: quantum.probs %{{.*}}, %{{.*}} : tensor<4xf64>
  %p = quantum.probs %q, %q1 : tensor<4xf64>
  // CHECK: quantum.probs %{{.*}}, %{{.*}} in(%{{.*}} : memref<4xf64>)
  quantum.probs %q, %q1 in(%buf : memref<4xf64>)
  return %p : tensor<4xf64>
}

// CHECK-LABEL: func.func @probs_range
func.func @probs_range(%buf: memref<8xf64>) -> tensor<4xf64> {
  %r = quantum.alloc(6) : !quantum.reg
  // CHECK: quantum.probs reg %{{.*}}[4, 2] : tensor<4xf64>
  %p = quantum.probs reg %r[4, 2] : tensor<4xf64>
  // CHECK: quantum.probs reg %{{.*}}[0, 3] in(%{{.*}} : memref<8xf64>)
  quantum.probs reg %r[0, 3] in(%buf : memref<8xf64>)
  quantum.dealloc %r : !quantum.reg
  return %p : tensor<4xf64>
}

// A gate table: H(q0), X(q1) ctrls(q0), pauli_rot "XZ"(p[0]) q1, q2 ctrls(q0);
// tensor parameters before bufferization, a memref after, none at all.
// CHECK-LABEL: func.func @gate_table
// CHECK: quantum.gate_table %{{.*}}, %{{.*}}, %{{.*}} params(%{{.*}} : tensor<1xf64>) kinds ["H", "X", "pauli_rot"] words "XZ" records [0, 0, -1, 1, 0, 0, 0, 1, 0, -1, 1, 1, 0, 1, 0, 2, 0, 0, 2, 1, 0, 1, 2, 0] : !quantum.bit, !quantum.bit, !quantum.bit
// CHECK: quantum.gate_table %{{.*}} params(%{{.*}} : memref<?xf64>) kinds ["RZ"] records [0, 1, 0, 1, 0, 0, 0] : !quantum.bit
// CHECK: quantum.gate_table %{{.*}} kinds ["H"] records [0, 0, -1, 1, 0, 0, 0] : !quantum.bit
// CHECK: quantum.gate_table %{{.*}}, %{{.*}} params(%{{.*}} : tensor<1xf64>) kinds ["pauli_rot_ladder", "pauli_rot"] words "ZY" records [0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0] : !quantum.bit, !quantum.bit
func.func @gate_table(%q0: !quantum.bit, %q1: !quantum.bit, %q2: !quantum.bit, %p: tensor<1xf64>, %m: memref<?xf64>) -> !quantum.bit {
  %o:3 = quantum.gate_table %q0, %q1, %q2 params(%p : tensor<1xf64>) kinds ["H", "X", "pauli_rot"] words "XZ"
           records [0, 0, -1, 1, 0, 0, 0,  1, 0, -1, 1, 1, 0, 1, 0,  2, 0, 0, 2, 1, 0, 1, 2, 0]
           : !quantum.bit, !quantum.bit, !quantum.bit
  %a = quantum.gate_table %o#0 params(%m : memref<?xf64>) kinds ["RZ"] records [0, 1, 0, 1, 0, 0, 0] : !quantum.bit
  %b = quantum.gate_table %a kinds ["H"] records [0, 0, -1, 1, 0, 0, 0] : !quantum.bit
  // The decomposed rotation kind, next to the native one.
  %d:2 = quantum.gate_table %b, %o#1 params(%p : tensor<1xf64>) kinds ["pauli_rot_ladder", "pauli_rot"] words "ZY"
           records [0, 0, 0, 1, 1, 0, 1, 0,  1, 1, 0, 1, 0, 1, 0]
           : !quantum.bit, !quantum.bit
  return %d#0 : !quantum.bit
}

// -----

// CHECK-LABEL: func.func @power
// CHECK: %[[R:.*]]:2 = quantum.power %{{.*}} qubits(%{{.*}}, %{{.*}}) : !quantum.bit, !quantum.bit {
// CHECK-NEXT: ^bb0(%[[A:.*]]: !quantum.bit, %[[B:.*]]: !quantum.bit):
// CHECK: quantum.yield
func.func @power(%n: index, %c: !quantum.bit, %q: !quantum.bit, %t: f64) -> (!quantum.bit, !quantum.bit) {
  %r:2 = quantum.power %n qubits(%c, %q) : !quantum.bit, !quantum.bit {
  ^bb0(%a: !quantum.bit, %b: !quantum.bit):
    %o, %oc = quantum.pauli_rot "Z"(%t) %b ctrls(%a) : !quantum.bit ctrls !quantum.bit
    quantum.yield %oc, %o : !quantum.bit, !quantum.bit
  }
  return %r#0, %r#1 : !quantum.bit, !quantum.bit
}

// A powered body may call outlined gate chunks (quantum-outline-chunks).
// CHECK-LABEL: func.func @power_call
// CHECK: quantum.power
// CHECK: func.call @chunk(%{{.*}}) : (!quantum.bit) -> !quantum.bit
// CHECK: quantum.yield
func.func private @chunk(!quantum.bit) -> !quantum.bit
func.func @power_call(%n: index, %q: !quantum.bit) -> !quantum.bit {
  %r = quantum.power %n qubits(%q) : !quantum.bit {
  ^bb0(%a: !quantum.bit):
    %b = func.call @chunk(%a) : (!quantum.bit) -> !quantum.bit
    quantum.yield %b : !quantum.bit
  }
  return %r : !quantum.bit
}
