// RUN: q2-opt %s --pass-pipeline='builtin.module(func.func(quantum-merge-rotations))' --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @rz_chain
// CHECK-SAME: (%[[Q:.*]]: !quantum.bit, %[[A:.*]]: f64, %[[B:.*]]: f64, %[[C:.*]]: f64)
// The adjoint counts as a negative angle: a + (-b) + c in some association.
// CHECK: arith.negf %[[B]]
// CHECK-COUNT-2: arith.addf
// CHECK: %[[R:.*]] = quantum.custom "RZ"(%{{.*}}) %[[Q]] : !quantum.bit
// CHECK-NOT: quantum.custom
// CHECK: return %[[R]]
func.func @rz_chain(%q: !quantum.bit, %a: f64, %b: f64, %c: f64) -> !quantum.bit {
  %0 = quantum.custom "RZ"(%a) %q : !quantum.bit
  %1 = quantum.custom "RZ"(%b) %0 adj : !quantum.bit
  %2 = quantum.custom "RZ"(%c) %1 : !quantum.bit
  return %2 : !quantum.bit
}

// -----

// Constant angles fold; a zero total removes the rotation.
// CHECK-LABEL: func.func @cancel_to_zero
// CHECK-NOT: quantum.pauli_rot
// CHECK: %[[R:.*]] = quantum.custom "RX"(%{{.*}}) %{{.*}} : !quantum.bit
// CHECK-NOT: quantum.custom
func.func @cancel_to_zero(%q0: !quantum.bit, %q1: !quantum.bit) -> (!quantum.bit, !quantum.bit) {
  %half = arith.constant 0.5 : f64
  %mhalf = arith.constant -0.5 : f64
  %a:2 = quantum.pauli_rot "YZ"(%half) %q0, %q1 : !quantum.bit, !quantum.bit
  %b:2 = quantum.pauli_rot "YZ"(%mhalf) %a#0, %a#1 : !quantum.bit, !quantum.bit
  %c = quantum.custom "RX"(%half) %b#0 : !quantum.bit
  %d = quantum.custom "RX"(%half) %c : !quantum.bit
  return %d, %b#1 : !quantum.bit, !quantum.bit
}

// -----

// Controlled rotations merge when the controls match.
// CHECK-LABEL: func.func @controlled
// CHECK: arith.addf
// CHECK: quantum.pauli_rot "XY"(%{{.*}}) %{{.*}}, %{{.*}} ctrls(%{{.*}}) :
// CHECK-NOT: quantum.pauli_rot
func.func @controlled(%q0: !quantum.bit, %q1: !quantum.bit, %c: !quantum.bit, %t: f64) -> (!quantum.bit, !quantum.bit, !quantum.bit) {
  %a:2, %ac = quantum.pauli_rot "XY"(%t) %q0, %q1 ctrls(%c) : !quantum.bit, !quantum.bit ctrls !quantum.bit
  %b:2, %bc = quantum.pauli_rot "XY"(%t) %a#0, %a#1 ctrls(%ac) : !quantum.bit, !quantum.bit ctrls !quantum.bit
  return %b#0, %b#1, %bc : !quantum.bit, !quantum.bit, !quantum.bit
}

// -----

// Negative cases: different gates, words, targets or controls do not merge.
// CHECK-LABEL: func.func @no_merge
// CHECK-COUNT-2: quantum.custom "R
// CHECK-COUNT-2: quantum.pauli_rot
// CHECK-COUNT-2: quantum.custom "RZ"
// CHECK-NOT: arith.addf
func.func @no_merge(%q0: !quantum.bit, %q1: !quantum.bit, %c: !quantum.bit, %t: f64) -> (!quantum.bit, !quantum.bit, !quantum.bit) {
  %a = quantum.custom "RX"(%t) %q0 : !quantum.bit
  %b = quantum.custom "RY"(%t) %a : !quantum.bit
  %d:2 = quantum.pauli_rot "XY"(%t) %b, %q1 : !quantum.bit, !quantum.bit
  %e:2 = quantum.pauli_rot "YX"(%t) %d#0, %d#1 : !quantum.bit, !quantum.bit
  %f = quantum.custom "RZ"(%t) %e#0 : !quantum.bit
  %g, %gc = quantum.custom "RZ"(%t) %f ctrls(%c) : !quantum.bit ctrls !quantum.bit
  return %g, %gc, %e#1 : !quantum.bit, !quantum.bit, !quantum.bit
}
