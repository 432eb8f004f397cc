// RUN: q2-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(quantum-power-loops))' | FileCheck %s
// RUN: q2-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(quantum-power-loops{min-gates=3}))' | FileCheck %s --check-prefix=MIN

// A loop that repeats the same gates (power=repeat QPE): one quantum.power
// with the trip count, the body moved in, the angle math kept inside.
// CHECK-LABEL: func.func @repeat
// CHECK-SAME: (%[[C:.*]]: !quantum.bit, %[[Q:.*]]: !quantum.bit, %[[T:.*]]: f64, %[[N:.*]]: index)
// CHECK: %[[SPAN:.*]] = arith.subi %[[N]], %{{.*}} : index
// CHECK: %[[CNT:.*]] = arith.maxsi %[[SPAN]], %{{.*}} : index
// CHECK: %[[R:.*]]:2 = quantum.power %[[CNT]] qubits(%[[C]], %[[Q]]) : !quantum.bit, !quantum.bit {
// CHECK-NEXT: ^bb0(%[[A:.*]]: !quantum.bit, %[[B:.*]]: !quantum.bit):
// CHECK-NEXT: %[[H:.*]] = arith.mulf %[[T]], %{{.*}} : f64
// CHECK-NEXT: %[[O:.*]], %[[OC:.*]] = quantum.pauli_rot "Z"(%[[H]]) %[[B]] ctrls(%[[A]])
// CHECK-NEXT: quantum.yield %[[OC]], %[[O]] : !quantum.bit, !quantum.bit
// CHECK-NEXT: }
// CHECK-NOT: scf.for
// CHECK: return %[[R]]#0, %[[R]]#1
// MIN-LABEL: func.func @repeat
// MIN: scf.for
func.func @repeat(%c: !quantum.bit, %q: !quantum.bit, %t: f64, %n: index) -> (!quantum.bit, !quantum.bit) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %half = arith.constant 0.5 : f64
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c, %b = %q) -> (!quantum.bit, !quantum.bit) {
    %h = arith.mulf %t, %half : f64
    %o, %oc = quantum.pauli_rot "Z"(%h) %b ctrls(%a) : !quantum.bit ctrls !quantum.bit
    scf.yield %oc, %o : !quantum.bit, !quantum.bit
  }
  return %r#0, %r#1 : !quantum.bit, !quantum.bit
}

// -----

// A step other than 1: the count is ceildiv(ub - lb, step).
// CHECK-LABEL: func.func @stepped
// CHECK: %[[D:.*]] = arith.subi
// CHECK: %[[Q:.*]] = arith.ceildivsi %[[D]], %{{.*}} : index
// CHECK: %[[CNT:.*]] = arith.maxsi %[[Q]], %{{.*}} : index
// CHECK: quantum.power %[[CNT]] qubits(
func.func @stepped(%q: !quantum.bit, %lb: index, %ub: index) -> !quantum.bit {
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %lb to %ub step %c3 iter_args(%a = %q) -> (!quantum.bit) {
    %b = quantum.custom "H"() %a : !quantum.bit
    %c = quantum.custom "S"() %b : !quantum.bit
    %d = quantum.custom "T"() %c : !quantum.bit
    scf.yield %d : !quantum.bit
  }
  return %r : !quantum.bit
}

// -----

// Nested: the inner loop first, then the loop around the power.
// CHECK-LABEL: func.func @nested
// CHECK: quantum.power %{{.*}} qubits(%{{.*}}) : !quantum.bit {
// CHECK: quantum.power %{{.*}} qubits(%{{.*}}) : !quantum.bit {
// CHECK: quantum.custom "RX"
// CHECK-NOT: scf.for
func.func @nested(%q: !quantum.bit, %t: f64) -> !quantum.bit {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %q) -> (!quantum.bit) {
    %s = scf.for %j = %c0 to %c4 step %c1 iter_args(%b = %a) -> (!quantum.bit) {
      %x = quantum.custom "RX"(%t) %b : !quantum.bit
      scf.yield %x : !quantum.bit
    }
    scf.yield %s : !quantum.bit
  }
  return %r : !quantum.bit
}

// -----

// Left alone: the body uses the induction variable (the inverse QFT, the
// loop over estimation wires), carries a non-qubit value, measures, or has
// no gate.
// CHECK-LABEL: func.func @not_powerable
// CHECK-NOT: quantum.power
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
func.func @not_powerable(%q: !quantum.bit, %r: !quantum.reg, %n: index) -> (!quantum.bit, f64, !quantum.bit, !quantum.bit) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %a = scf.for %i = %c0 to %n step %c1 iter_args(%x = %q) -> (!quantum.bit) {
    %f = arith.index_cast %i : index to i64
    %g = arith.sitofp %f : i64 to f64
    %y = quantum.custom "RZ"(%g) %x : !quantum.bit
    scf.yield %y : !quantum.bit
  }
  %b:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a, %acc = %z) -> (!quantum.bit, f64) {
    %y = quantum.custom "H"() %x : !quantum.bit
    scf.yield %y, %acc : !quantum.bit, f64
  }
  %c = scf.for %i = %c0 to %n step %c1 iter_args(%x = %b#0) -> (!quantum.bit) {
    %m, %y = quantum.measure %x : i1, !quantum.bit
    scf.yield %y : !quantum.bit
  }
  %d = scf.for %i = %c0 to %n step %c1 iter_args(%x = %c) -> (!quantum.bit) {
    scf.yield %x : !quantum.bit
  }
  return %c, %b#1, %d, %a : !quantum.bit, f64, !quantum.bit, !quantum.bit
}

// -----

// A Trotter step written as one gate table (q2-qpe's form): the table's
// records are the body's gates (3 here, so min-gates=3 powers it too).
// CHECK-LABEL: func.func @table_body
// CHECK: quantum.power %{{.*}} qubits(%{{.*}}, %{{.*}})
// CHECK: quantum.gate_table
// CHECK: quantum.yield
// MIN-LABEL: func.func @table_body
// MIN: quantum.power
func.func @table_body(%c: !quantum.bit, %a: !quantum.bit, %p: tensor<2xf64>, %n: index) -> (!quantum.bit, !quantum.bit) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %c, %y = %a) -> (!quantum.bit, !quantum.bit) {
    %o:2 = quantum.gate_table %x, %y params(%p : tensor<2xf64>) kinds ["pauli_rot", "PhaseShift"] words "X"
             records [0, 0, 0, 1, 1, 0, 1, 0,  1, 0, 1, 1, 0, 0, 0,  0, 0, 1, 1, 1, 0, 1, 0]
             : !quantum.bit, !quantum.bit
    scf.yield %o#0, %o#1 : !quantum.bit, !quantum.bit
  }
  return %r#0, %r#1 : !quantum.bit, !quantum.bit
}

// -----

// A table of fewer records than min-gates is not powered.
// MIN-LABEL: func.func @small_table
// MIN-NOT: quantum.power
// MIN: scf.for
func.func @small_table(%c: !quantum.bit, %p: tensor<1xf64>, %n: index) -> !quantum.bit {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %c) -> (!quantum.bit) {
    %o = quantum.gate_table %x params(%p : tensor<1xf64>) kinds ["PhaseShift"] records [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0] : !quantum.bit
    scf.yield %o : !quantum.bit
  }
  return %r : !quantum.bit
}
