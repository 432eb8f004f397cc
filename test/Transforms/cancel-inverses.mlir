// RUN: q2-opt %s --pass-pipeline='builtin.module(func.func(quantum-cancel-inverses))' --split-input-file | FileCheck %s
// The pass also runs on a whole module.
// RUN: q2-opt %s --pass-pipeline='builtin.module(quantum-cancel-inverses)' --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @self_inverse
// CHECK-SAME: (%[[Q:.*]]: !quantum.bit, %[[P:.*]]: !quantum.bit)
// CHECK-NOT: quantum.custom
// CHECK: return %[[Q]], %[[P]]
func.func @self_inverse(%q: !quantum.bit, %p: !quantum.bit) -> (!quantum.bit, !quantum.bit) {
  %a = quantum.custom "H"() %q : !quantum.bit
  %b = quantum.custom "H"() %a : !quantum.bit
  %c:2 = quantum.custom "CNOT"() %b, %p : !quantum.bit, !quantum.bit
  %d:2 = quantum.custom "CNOT"() %c#0, %c#1 : !quantum.bit, !quantum.bit
  return %d#0, %d#1 : !quantum.bit, !quantum.bit
}

// -----

// Cancellation cascades: X H H X -> nothing.
// CHECK-LABEL: func.func @nested
// CHECK-NOT: quantum.custom
func.func @nested(%q: !quantum.bit) -> !quantum.bit {
  %a = quantum.custom "X"() %q : !quantum.bit
  %b = quantum.custom "H"() %a : !quantum.bit
  %c = quantum.custom "H"() %b : !quantum.bit
  %d = quantum.custom "X"() %c : !quantum.bit
  return %d : !quantum.bit
}

// -----

// G followed by G-dagger, with the same controls and parameter.
// CHECK-LABEL: func.func @adjoint_pair
// CHECK-NOT: quantum.custom
// CHECK-NOT: quantum.pauli_rot
func.func @adjoint_pair(%q: !quantum.bit, %c: !quantum.bit, %t: f64) -> (!quantum.bit, !quantum.bit) {
  %a, %ac = quantum.custom "S"() %q ctrls(%c) : !quantum.bit ctrls !quantum.bit
  %b, %bc = quantum.custom "S"() %a ctrls(%ac) adj : !quantum.bit ctrls !quantum.bit
  %d:2 = quantum.pauli_rot "XZ"(%t) %b, %bc : !quantum.bit, !quantum.bit
  %e:2 = quantum.pauli_rot "XZ"(%t) %d#0, %d#1 adj : !quantum.bit, !quantum.bit
  return %e#0, %e#1 : !quantum.bit, !quantum.bit
}

// -----

// Negative cases: nothing here is an inverse pair.
// CHECK-LABEL: func.func @not_inverse
// CHECK-COUNT-2: quantum.custom "S"
// CHECK: quantum.custom "CNOT"
// CHECK: quantum.custom "CNOT"
// CHECK: quantum.custom "H"
// CHECK: quantum.custom "H"
// CHECK-COUNT-2: quantum.pauli_rot
func.func @not_inverse(%q: !quantum.bit, %p: !quantum.bit, %t: f64, %u: f64) -> (!quantum.bit, !quantum.bit) {
  // S.S is Z, not the identity.
  %a = quantum.custom "S"() %q : !quantum.bit
  %b = quantum.custom "S"() %a : !quantum.bit
  // Operands swapped: CNOT(a,b) CNOT(b,a) is not the identity.
  %c:2 = quantum.custom "CNOT"() %b, %p : !quantum.bit, !quantum.bit
  %d:2 = quantum.custom "CNOT"() %c#1, %c#0 : !quantum.bit, !quantum.bit
  // The first H has a second user, so it cannot go.
  %e = quantum.custom "H"() %d#0 : !quantum.bit
  %f = quantum.custom "H"() %e : !quantum.bit
  %g, %h = quantum.measure %e : i1, !quantum.bit
  // Different angles.
  %i:2 = quantum.pauli_rot "XX"(%t) %f, %d#1 : !quantum.bit, !quantum.bit
  %j:2 = quantum.pauli_rot "XX"(%u) %i#0, %i#1 adj : !quantum.bit, !quantum.bit
  return %j#0, %j#1 : !quantum.bit, !quantum.bit
}
