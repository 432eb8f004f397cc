// RUN: q2-opt %s --pass-pipeline='builtin.module(func.func(quantum-unroll))' --split-input-file | FileCheck %s

// A constant 3-trip loop carrying a qubit becomes three gates in a row.
// CHECK-LABEL: func.func @constant_trip
// CHECK-SAME: (%[[Q:.*]]: !quantum.bit, %[[T:.*]]: f64)
// CHECK-NOT: scf.for
// CHECK: %[[A:.*]] = quantum.custom "RX"(%[[T]]) %[[Q]] : !quantum.bit
// CHECK-NEXT: %[[B:.*]] = quantum.custom "RX"(%[[T]]) %[[A]] : !quantum.bit
// CHECK-NEXT: %[[C:.*]] = quantum.custom "RX"(%[[T]]) %[[B]] : !quantum.bit
// CHECK-NOT: quantum.custom
// CHECK: return %[[C]]
func.func @constant_trip(%q: !quantum.bit, %t: f64) -> !quantum.bit {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %q) -> (!quantum.bit) {
    %b = quantum.custom "RX"(%t) %a : !quantum.bit
    scf.yield %b : !quantum.bit
  }
  return %r : !quantum.bit
}

// -----

// Nested: the inner bound depends on the outer induction variable
// (triangular, like the inverse QFT) and is constant only after the outer
// loop is unrolled: 0 + 1 + 2 = 3 gates.
// CHECK-LABEL: func.func @triangular
// CHECK-NOT: scf.for
// CHECK-COUNT-3: quantum.custom "H"
// CHECK-NOT: quantum.custom
// CHECK: return
func.func @triangular(%q: !quantum.bit) -> !quantum.bit {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %q) -> (!quantum.bit) {
    %s = scf.for %j = %c0 to %i step %c1 iter_args(%b = %a) -> (!quantum.bit) {
      %g = quantum.custom "H"() %b : !quantum.bit
      scf.yield %g : !quantum.bit
    }
    scf.yield %s : !quantum.bit
  }
  return %r : !quantum.bit
}

// -----

// A dynamic trip count (power = repeat with a runtime bound) stays a loop.
// CHECK-LABEL: func.func @dynamic_trip
// CHECK: scf.for
// CHECK: quantum.custom "X"
func.func @dynamic_trip(%q: !quantum.bit, %n: index) -> !quantum.bit {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %q) -> (!quantum.bit) {
    %b = quantum.custom "X"() %a : !quantum.bit
    scf.yield %b : !quantum.bit
  }
  return %r : !quantum.bit
}

// -----

// A zero-trip loop disappears; its result is the init value.
// CHECK-LABEL: func.func @zero_trip
// CHECK-SAME: (%[[Q:.*]]: !quantum.bit)
// CHECK-NOT: scf.for
// CHECK-NOT: quantum.custom
// CHECK: return %[[Q]]
func.func @zero_trip(%q: !quantum.bit) -> !quantum.bit {
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %r = scf.for %i = %c5 to %c1 step %c1 iter_args(%a = %q) -> (!quantum.bit) {
    %b = quantum.custom "X"() %a : !quantum.bit
    scf.yield %b : !quantum.bit
  }
  return %r : !quantum.bit
}
