// RUN: q2-opt %s --canonicalize --split-input-file | FileCheck %s

// count 0 is the identity; count 1 is the body once.
// CHECK-LABEL: func.func @zero
// CHECK-NEXT: return %arg0
func.func @zero(%q: !quantum.bit) -> !quantum.bit {
  %c0 = arith.constant 0 : index
  %r = quantum.power %c0 qubits(%q) : !quantum.bit {
  ^bb0(%a: !quantum.bit):
    %b = quantum.custom "H"() %a : !quantum.bit
    quantum.yield %b : !quantum.bit
  }
  return %r : !quantum.bit
}

// -----

// CHECK-LABEL: func.func @one
// CHECK-NOT: quantum.power
// CHECK: %[[B:.*]] = quantum.custom "H"() %arg0
// CHECK: return %[[B]]
func.func @one(%q: !quantum.bit) -> !quantum.bit {
  %c1 = arith.constant 1 : index
  %r = quantum.power %c1 qubits(%q) : !quantum.bit {
  ^bb0(%a: !quantum.bit):
    %b = quantum.custom "H"() %a : !quantum.bit
    quantum.yield %b : !quantum.bit
  }
  return %r : !quantum.bit
}

// -----

// CHECK-LABEL: func.func @many
// CHECK: quantum.power
func.func @many(%q: !quantum.bit, %n: index) -> !quantum.bit {
  %r = quantum.power %n qubits(%q) : !quantum.bit {
  ^bb0(%a: !quantum.bit):
    %b = quantum.custom "H"() %a : !quantum.bit
    quantum.yield %b : !quantum.bit
  }
  return %r : !quantum.bit
}
