// RUN: q2-opt %s --pass-pipeline='builtin.module(func.func(quantum-decompose-pauli-rot))' --split-input-file | FileCheck %s
// RUN: q2-opt %s --pass-pipeline='builtin.module(func.func(quantum-decompose-pauli-rot{keep-native=true}))' --split-input-file | FileCheck %s --check-prefix=NATIVE

// exp(-i t/2 XY) = B^dag L^dag RZ(t) L B: H on the X qubit, RX(pi/2) on the
// Y qubit (RX(-pi/2) Z RX(pi/2) = Y), a CNOT ladder onto the last qubit, RZ there, and everything undone.
// CHECK-LABEL: func.func @xy
// CHECK-SAME: (%[[A:.*]]: !quantum.bit, %[[B:.*]]: !quantum.bit, %[[T:.*]]: f64)
// CHECK-DAG: %[[PPI2:.*]] = arith.constant 1.57079632679489{{[0-9]*}} : f64
// CHECK-DAG: %[[MPI2:.*]] = arith.constant -1.57079632679489{{[0-9]*}} : f64
// CHECK: %[[A1:.*]] = quantum.custom "H"() %[[A]] : !quantum.bit
// CHECK: %[[B1:.*]] = quantum.custom "RX"(%[[PPI2]]) %[[B]] : !quantum.bit
// CHECK: %[[B2:.*]], %[[A2:.*]] = quantum.custom "X"() %[[B1]] ctrls(%[[A1]]) : !quantum.bit ctrls !quantum.bit
// CHECK: %[[B3:.*]] = quantum.custom "RZ"(%[[T]]) %[[B2]] : !quantum.bit
// CHECK: %[[B4:.*]], %[[A3:.*]] = quantum.custom "X"() %[[B3]] ctrls(%[[A2]]) : !quantum.bit ctrls !quantum.bit
// CHECK: %[[A4:.*]] = quantum.custom "H"() %[[A3]] : !quantum.bit
// CHECK: %[[B5:.*]] = quantum.custom "RX"(%[[MPI2]]) %[[B4]] : !quantum.bit
// CHECK: return %[[A4]], %[[B5]]
// CHECK-NOT: pauli_rot
// NATIVE-LABEL: func.func @xy
// NATIVE: quantum.pauli_rot "XY"
// NATIVE-NOT: quantum.custom
func.func @xy(%a: !quantum.bit, %b: !quantum.bit, %t: f64) -> (!quantum.bit, !quantum.bit) {
  %h:2 = quantum.pauli_rot "XY"(%t) %a, %b : !quantum.bit, !quantum.bit
  return %h#0, %h#1 : !quantum.bit, !quantum.bit
}

// -----

// Identity letters are skipped (their qubit passes through untouched), the
// control moves onto the RZ alone, the ladder connects only active qubits.
// CHECK-LABEL: func.func @controlled_with_identity
// CHECK-SAME: (%[[A:.*]]: !quantum.bit, %[[B:.*]]: !quantum.bit, %[[C:.*]]: !quantum.bit, %[[K:.*]]: !quantum.bit, %[[T:.*]]: f64)
// CHECK: %[[C1:.*]] = quantum.custom "H"() %[[C]] : !quantum.bit
// CHECK: %[[C2:.*]], %[[A1:.*]] = quantum.custom "X"() %[[C1]] ctrls(%[[A]]) : !quantum.bit ctrls !quantum.bit
// CHECK: %[[C3:.*]], %[[K1:.*]] = quantum.custom "RZ"(%[[T]]) %[[C2]] ctrls(%[[K]]) : !quantum.bit ctrls !quantum.bit
// CHECK: %[[C4:.*]], %[[A2:.*]] = quantum.custom "X"() %[[C3]] ctrls(%[[A1]]) : !quantum.bit ctrls !quantum.bit
// CHECK: %[[C5:.*]] = quantum.custom "H"() %[[C4]] : !quantum.bit
// CHECK: return %[[A2]], %[[B]], %[[C5]], %[[K1]]
// NATIVE-LABEL: func.func @controlled_with_identity
// NATIVE: quantum.pauli_rot "ZIX"(%{{.*}}) %{{.*}}, %{{.*}}, %{{.*}} ctrls(%{{.*}})
func.func @controlled_with_identity(%a: !quantum.bit, %b: !quantum.bit, %c: !quantum.bit, %k: !quantum.bit, %t: f64) -> (!quantum.bit, !quantum.bit, !quantum.bit, !quantum.bit) {
  %h:3, %hc = quantum.pauli_rot "ZIX"(%t) %a, %b, %c ctrls(%k) : !quantum.bit, !quantum.bit, !quantum.bit ctrls !quantum.bit
  return %h#0, %h#1, %h#2, %hc : !quantum.bit, !quantum.bit, !quantum.bit, !quantum.bit
}

// -----

// An adjoint rotation is decomposed with the negated angle.
// CHECK-LABEL: func.func @adjoint
// CHECK-SAME: (%[[A:.*]]: !quantum.bit, %[[T:.*]]: f64)
// CHECK: %[[N:.*]] = arith.negf %[[T]] : f64
// CHECK: %[[R:.*]] = quantum.custom "RZ"(%[[N]]) %[[A]] : !quantum.bit
// CHECK: return %[[R]]
func.func @adjoint(%a: !quantum.bit, %t: f64) -> !quantum.bit {
  %h = quantum.pauli_rot "Z"(%t) %a adj : !quantum.bit
  return %h : !quantum.bit
}

// -----

// An all-identity word is a global phase: dropped without controls,
// PhaseShift(-t/2) on the control when controlled (QPE's constant term).
// CHECK-LABEL: func.func @identity_controlled
// CHECK-SAME: (%[[A:.*]]: !quantum.bit, %[[K:.*]]: !quantum.bit, %[[T:.*]]: f64)
// CHECK: %[[H:.*]] = arith.constant -5.000000e-01 : f64
// CHECK: %[[P:.*]] = arith.mulf %[[T]], %[[H]] : f64
// CHECK: %[[K1:.*]] = quantum.custom "PhaseShift"(%[[P]]) %[[K]] : !quantum.bit
// CHECK: return %[[A]], %[[K1]]
func.func @identity_controlled(%a: !quantum.bit, %k: !quantum.bit, %t: f64) -> (!quantum.bit, !quantum.bit) {
  %h, %hc = quantum.pauli_rot "I"(%t) %a ctrls(%k) : !quantum.bit ctrls !quantum.bit
  return %h, %hc : !quantum.bit, !quantum.bit
}

// CHECK-LABEL: func.func @identity_uncontrolled
// CHECK-SAME: (%[[A:.*]]: !quantum.bit, %[[B:.*]]: !quantum.bit, %{{.*}}: f64)
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @identity_uncontrolled(%a: !quantum.bit, %b: !quantum.bit, %t: f64) -> (!quantum.bit, !quantum.bit) {
  %h:2 = quantum.pauli_rot "II"(%t) %a, %b : !quantum.bit, !quantum.bit
  return %h#0, %h#1 : !quantum.bit, !quantum.bit
}

// -----

// A gate table's Pauli rotations stay records: their kind becomes
// pauli_rot_ladder (executed decomposed by the lowering), the other kinds,
// the words and the records are unchanged. keep-native leaves the table.
// CHECK-LABEL: func.func @table
// CHECK: quantum.gate_table %{{.*}} params(%{{.*}} : tensor<2xf64>) kinds ["pauli_rot_ladder", "PhaseShift"] words "XYZ" records [0, 0, 0, 2, 1, 0, 1, 2, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 0]
// CHECK-NOT: quantum.custom
// NATIVE-LABEL: func.func @table
// NATIVE: kinds ["pauli_rot", "PhaseShift"] words "XYZ" records [0, 0, 0, 2, 1, 0, 1, 2, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 0]
func.func @table(%c: !quantum.bit, %a: !quantum.bit, %b: !quantum.bit, %p: tensor<2xf64>) -> (!quantum.bit, !quantum.bit, !quantum.bit) {
  %o:3 = quantum.gate_table %c, %a, %b params(%p : tensor<2xf64>) kinds ["pauli_rot", "PhaseShift"] words "XYZ"
           records [0, 0, 0, 2, 1, 0, 1, 2, 0,
                    1, 0, 1, 1, 0, 0, 0,
                    0, 0, 0, 1, 1, 2, 2, 0]
           : !quantum.bit, !quantum.bit, !quantum.bit
  return %o#0, %o#1, %o#2 : !quantum.bit, !quantum.bit, !quantum.bit
}
