// RUN: q2-opt %s --pass-pipeline='builtin.module(func.func(quantum-power-loops),quantum-outline-chunks{max-gates=2 min-gates=2})' | FileCheck %s
// RUN: q2-opt %s --pass-pipeline='builtin.module(func.func(quantum-power-loops),quantum-outline-chunks{max-gates=2 min-gates=2})' | q2-opt --pass-pipeline='builtin.module(q2-bufferization,q2-llvm-dialect)' | FileCheck %s --check-prefix=LLVM

// The stage-2 order: a repeated Trotter step becomes quantum.power first,
// then its long body is outlined like any other block. The body keeps its
// shape (arguments in, yield out) and holds calls to the chunks; the
// verifier accepts calls there because the runtime records whatever gates
// the callee applies and refuses anything else.
// CHECK-LABEL: func.func @repeat
// CHECK: %[[R:.*]]:2 = quantum.power %{{.*}} qubits(%{{.*}}, %{{.*}}) : !quantum.bit, !quantum.bit {
// CHECK-NEXT: ^bb0(%[[A:.*]]: !quantum.bit, %[[B:.*]]: !quantum.bit):
// CHECK: call @repeat.chunk
// CHECK: quantum.pauli_rot "X"
// CHECK-NEXT: quantum.yield
// CHECK: return %[[R]]#0, %[[R]]#1
// CHECK: func.func private @repeat.chunk
// CHECK-SAME: passthrough = ["noinline"]
// CHECK: quantum.gate_table
//
// Lowered, the body runs once between the block markers and calls the chunks.
// LLVM-LABEL: llvm.func @repeat(
// LLVM: llvm.call @q2_rt_block_begin
// LLVM-NEXT: llvm.call @repeat.chunk
// LLVM: llvm.call @q2_rt_block_end
func.func @repeat(%c: !quantum.bit, %q: !quantum.bit, %t: f64, %n: index) -> (!quantum.bit, !quantum.bit) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c, %b = %q) -> (!quantum.bit, !quantum.bit) {
    %o1, %a1 = quantum.pauli_rot "Z"(%t) %b ctrls(%a) : !quantum.bit ctrls !quantum.bit
    %o2, %a2 = quantum.pauli_rot "X"(%t) %o1 ctrls(%a1) : !quantum.bit ctrls !quantum.bit
    %o3, %a3 = quantum.pauli_rot "Y"(%t) %o2 ctrls(%a2) : !quantum.bit ctrls !quantum.bit
    %o4, %a4 = quantum.pauli_rot "Z"(%t) %o3 ctrls(%a3) : !quantum.bit ctrls !quantum.bit
    %o5, %a5 = quantum.pauli_rot "X"(%t) %o4 ctrls(%a4) : !quantum.bit ctrls !quantum.bit
    scf.yield %a5, %o5 : !quantum.bit, !quantum.bit
  }
  return %r#0, %r#1 : !quantum.bit, !quantum.bit
}
