// RUN: q2-opt %s --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --split-input-file | FileCheck %s

// quantum.gate_table only reads its parameters: it takes the buffer of its
// tensor, no copy. Parameters written into a stack buffer (as
// quantum-outline-chunks makes them) stay on the stack: nothing to free.
// CHECK-LABEL: func.func @params
// CHECK-SAME: (%[[Q:.*]]: !quantum.bit, %[[X:.*]]: f64)
// CHECK: %[[BUF:.*]] = memref.alloca() : memref<2xf64>
// CHECK-NOT: memref.alloc(
// CHECK-NOT: memref.copy
// CHECK: memref.store %[[X]], %[[BUF]][%{{.*}}] : memref<2xf64>
// CHECK: %[[O:.*]] = quantum.gate_table %[[Q]] params(%[[BUF]] : memref<2xf64>) kinds ["RZ"] records [0, 0, 1, 1, 0, 0, 0] : !quantum.bit
// CHECK: return %[[O]]
func.func @params(%q: !quantum.bit, %x: f64) -> !quantum.bit {
  %c1 = arith.constant 1 : index
  %buf = memref.alloca() : memref<2xf64>
  %t = bufferization.to_tensor %buf restrict writable : memref<2xf64> to tensor<2xf64>
  %p = tensor.insert %x into %t[%c1] : tensor<2xf64>
  %o = quantum.gate_table %q params(%p : tensor<2xf64>) kinds ["RZ"] records [0, 0, 1, 1, 0, 0, 0] : !quantum.bit
  return %o : !quantum.bit
}

// -----

// A function argument is read in place.
// CHECK-LABEL: func.func @arg
// CHECK-SAME: (%[[Q:.*]]: !quantum.bit, %[[P:.*]]: memref<1xf64>)
// CHECK-NEXT: %[[O:.*]] = quantum.gate_table %[[Q]] params(%[[P]] : memref<1xf64>)
// CHECK-NEXT: return %[[O]]
func.func @arg(%q: !quantum.bit, %p: tensor<1xf64>) -> !quantum.bit {
  %o = quantum.gate_table %q params(%p : tensor<1xf64>) kinds ["RZ"] records [0, 0, 0, 1, 0, 0, 0] : !quantum.bit
  return %o : !quantum.bit
}
