// RUN: q2-opt %s --convert-quantum-to-llvm | FileCheck %s

// quantum.power: the body once, between q2_rt_block_begin(count) and
// q2_rt_block_end(); the runtime records it and applies it count times.
// CHECK-DAG: llvm.func @q2_rt_block_begin(i64)
// CHECK-DAG: llvm.func @q2_rt_block_end()
// CHECK-LABEL: func.func @power
// CHECK-SAME: (%[[N:.*]]: index, %[[C:.*]]: !llvm.ptr, %[[Q:.*]]: !llvm.ptr, %[[T:.*]]: f64)
// CHECK: %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: llvm.call @q2_rt_block_begin(%[[N64]]) : (i64) -> ()
// CHECK: llvm.call @q2_rt_pauli_rot(%[[T]],
// CHECK: llvm.call @q2_rt_block_begin
// CHECK: llvm.call @q2_rt_gate(
// CHECK: llvm.call @q2_rt_block_end() : () -> ()
// CHECK: llvm.call @q2_rt_block_end() : () -> ()
// CHECK: return %[[C]], %[[Q]] : !llvm.ptr, !llvm.ptr
// CHECK-NOT: quantum.
func.func @power(%n: index, %c: !quantum.bit, %q: !quantum.bit, %t: f64) -> (!quantum.bit, !quantum.bit) {
  %r:2 = quantum.power %n qubits(%c, %q) : !quantum.bit, !quantum.bit {
  ^bb0(%a: !quantum.bit, %b: !quantum.bit):
    %o, %oc = quantum.pauli_rot "Z"(%t) %b ctrls(%a) : !quantum.bit ctrls !quantum.bit
    %in = quantum.power %n qubits(%o) : !quantum.bit {
    ^bb0(%x: !quantum.bit):
      %y = quantum.custom "H"() %x : !quantum.bit
      quantum.yield %y : !quantum.bit
    }
    quantum.yield %oc, %in : !quantum.bit, !quantum.bit
  }
  return %r#0, %r#1 : !quantum.bit, !quantum.bit
}
