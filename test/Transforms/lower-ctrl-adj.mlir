// RUN: q2-opt %s --pass-pipeline='builtin.module(func.func(quantum-lower-ctrl-adj))' --split-input-file | FileCheck %s

// Adjoints disappear: self-inverse gates drop the flag, rotations negate
// their angle, S-dagger/T-dagger become PhaseShift(-pi/2)/PhaseShift(-pi/4).
// CHECK-LABEL: func.func @adjoints
// CHECK-SAME: (%[[Q:.*]]: !quantum.bit, %[[T:.*]]: f64)
// CHECK-DAG: %[[MPI4:.*]] = arith.constant -0.78539816339744{{[0-9]*}} : f64
// CHECK-DAG: %[[MPI2:.*]] = arith.constant -1.57079632679489{{[0-9]*}} : f64
// CHECK: %[[H:.*]] = quantum.custom "H"() %[[Q]] : !quantum.bit
// CHECK: %[[NEG:.*]] = arith.negf %[[T]] : f64
// CHECK: %[[RZ:.*]] = quantum.custom "RZ"(%[[NEG]]) %[[H]] : !quantum.bit
// CHECK: %[[S:.*]] = quantum.custom "PhaseShift"(%[[MPI2]]) %[[RZ]] : !quantum.bit
// CHECK: %[[TG:.*]] = quantum.custom "PhaseShift"(%[[MPI4]]) %[[S]] : !quantum.bit
// CHECK: %[[X:.*]] = quantum.custom "X"() %[[TG]] : !quantum.bit
// CHECK: return %[[X]]
// CHECK-NOT: adj
func.func @adjoints(%q: !quantum.bit, %t: f64) -> !quantum.bit {
  %a = quantum.custom "H"() %q adj : !quantum.bit
  %b = quantum.custom "RZ"(%t) %a adj : !quantum.bit
  %d = quantum.custom "S"() %b adj : !quantum.bit
  %e = quantum.custom "T"() %d adj : !quantum.bit
  %f = quantum.custom "X"() %e adj : !quantum.bit
  return %f : !quantum.bit
}

// -----

// Gate-inherent controls: CNOT(c, t) -> X(t) ctrls(c), CZ(c, t) -> Z(t)
// ctrls(c); the results are rewired so that #0 is still the control.
// CHECK-LABEL: func.func @inherent_controls
// CHECK-SAME: (%[[C:.*]]: !quantum.bit, %[[T:.*]]: !quantum.bit)
// CHECK: %[[XT:.*]], %[[XC:.*]] = quantum.custom "X"() %[[T]] ctrls(%[[C]]) : !quantum.bit ctrls !quantum.bit
// CHECK: %[[ZT:.*]], %[[ZC:.*]] = quantum.custom "Z"() %[[XT]] ctrls(%[[XC]]) : !quantum.bit ctrls !quantum.bit
// CHECK: return %[[ZC]], %[[ZT]]
// CHECK-NOT: CNOT
// CHECK-NOT: CZ
func.func @inherent_controls(%c: !quantum.bit, %t: !quantum.bit) -> (!quantum.bit, !quantum.bit) {
  %f:2 = quantum.custom "CNOT"() %c, %t : !quantum.bit, !quantum.bit
  %g:2 = quantum.custom "CZ"() %f#0, %f#1 : !quantum.bit, !quantum.bit
  return %g#0, %g#1 : !quantum.bit, !quantum.bit
}

// -----

// pauli_rot adjoint negates the angle and keeps word, targets and controls.
// CHECK-LABEL: func.func @pauli_adj
// CHECK-SAME: (%[[A:.*]]: !quantum.bit, %[[B:.*]]: !quantum.bit, %[[C:.*]]: !quantum.bit, %[[T:.*]]: f64)
// CHECK: %[[NEG:.*]] = arith.negf %[[T]] : f64
// CHECK: quantum.pauli_rot "XY"(%[[NEG]]) %[[A]], %[[B]] ctrls(%[[C]]) : !quantum.bit, !quantum.bit ctrls !quantum.bit
// CHECK-NOT: adj
func.func @pauli_adj(%a: !quantum.bit, %b: !quantum.bit, %c: !quantum.bit, %t: f64) -> (!quantum.bit, !quantum.bit, !quantum.bit) {
  %h:2, %hc = quantum.pauli_rot "XY"(%t) %a, %b ctrls(%c) adj : !quantum.bit, !quantum.bit ctrls !quantum.bit
  return %h#0, %h#1, %hc : !quantum.bit, !quantum.bit, !quantum.bit
}

// -----

// Controlled adjoint: the controls survive the adjoint lowering.
// CHECK-LABEL: func.func @ctrl_adj
// CHECK-SAME: (%[[Q:.*]]: !quantum.bit, %[[C:.*]]: !quantum.bit)
// CHECK: quantum.custom "PhaseShift"(%{{.*}}) %[[Q]] ctrls(%[[C]]) : !quantum.bit ctrls !quantum.bit
// CHECK-NOT: adj
func.func @ctrl_adj(%q: !quantum.bit, %c: !quantum.bit) -> (!quantum.bit, !quantum.bit) {
  %a, %ac = quantum.custom "S"() %q ctrls(%c) adj : !quantum.bit ctrls !quantum.bit
  return %a, %ac : !quantum.bit, !quantum.bit
}
