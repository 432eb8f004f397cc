// RUN: q2-opt %s --one-shot-bufferize='bufferize-function-boundaries' --split-input-file | FileCheck %s

// The tensor result of quantum.probs becomes a fresh buffer that the op
// writes in place (the out-buffer form the conversion needs).
// CHECK-LABEL: func.func @probs
// CHECK-SAME: (%[[Q0:.*]]: !quantum.bit, %[[Q1:.*]]: !quantum.bit) -> memref<4xf64>
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<4xf64>
// CHECK: quantum.probs %[[Q0]], %[[Q1]] in(%[[BUF]] : memref<4xf64>)
// CHECK: return %[[BUF]]
// CHECK-NOT: tensor<
func.func @probs(%q0: !quantum.bit, %q1: !quantum.bit) -> tensor<4xf64> {
  %p = quantum.probs %q0, %q1 : tensor<4xf64>
  return %p : tensor<4xf64>
}

// -----

// The register form (as q2-qpe writes it) bufferizes the same way.
// CHECK-LABEL: func.func @probs_reg
// CHECK: %[[R:.*]] = quantum.alloc(5) : !quantum.reg
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<8xf64>
// CHECK: quantum.probs reg %[[R]][2, 3] in(%[[BUF]] : memref<8xf64>)
// CHECK: quantum.dealloc %[[R]]
// CHECK: return %[[BUF]]
func.func @probs_reg() -> tensor<8xf64> {
  %r = quantum.alloc(5) : !quantum.reg
  %p = quantum.probs reg %r[2, 3] : tensor<8xf64>
  quantum.dealloc %r : !quantum.reg
  return %p : tensor<8xf64>
}
