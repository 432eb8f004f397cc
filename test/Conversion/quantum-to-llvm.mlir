// RUN: q2-opt %s --convert-scf-to-cf --convert-quantum-to-llvm --split-input-file | FileCheck %s --implicit-check-not=q2.scratch

// Runtime calls, one scratch alloca per kind in the entry block (sized for
// the widest op), the Pauli word as a private constant global. The slot
// addresses and constants are made once, in the entry block, after the
// allocas: a gate is its stores and one call. No marker attribute is left.
// CHECK-LABEL: module
// CHECK-DAG: llvm.mlir.global private constant @__q2_pauli_XZY("XZY")
// CHECK-DAG: llvm.func @q2_rt_alloc(i64) -> !llvm.ptr
// CHECK-DAG: llvm.func @q2_rt_qubit(!llvm.ptr, i64) -> !llvm.ptr
// CHECK-DAG: llvm.func @q2_rt_gate(i32, f64, !llvm.ptr, i64, !llvm.ptr, i64, i32)
// CHECK-DAG: llvm.func @q2_rt_pauli_rot(f64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, i64)
// CHECK-DAG: llvm.func @q2_rt_measure(!llvm.ptr) -> i{{[0-9]+}}
// CHECK-DAG: llvm.func @q2_rt_dealloc(!llvm.ptr)
// CHECK-LABEL: func.func @circuit
// CHECK-SAME: (%[[T:.*]]: f64) -> i1
// CHECK: %[[NT:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK: %[[TB:.*]] = llvm.alloca %[[NT]] x !llvm.ptr {alignment = 8 : i64} : (i64) -> !llvm.ptr
// CHECK: %[[NC:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK: %[[CB:.*]] = llvm.alloca %[[NC]] x !llvm.ptr {alignment = 8 : i64} : (i64) -> !llvm.ptr
// CHECK-DAG: %[[I0:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-DAG: %[[F0:.*]] = llvm.mlir.constant(0.000000e+00 : f64) : f64
// CHECK-DAG: %[[H:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-DAG: %[[NOADJ:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG: %[[RZ:.*]] = llvm.mlir.constant(9 : i32) : i32
// CHECK-DAG: %[[S1:.*]] = llvm.getelementptr %[[TB]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-DAG: %[[S2:.*]] = llvm.getelementptr %[[TB]][2] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[R:.*]] = llvm.call @q2_rt_alloc(%[[NT]]) : (i64) -> !llvm.ptr
// CHECK: %[[Q0:.*]] = llvm.call @q2_rt_qubit(%[[R]], %[[I0]]) : (!llvm.ptr, i64) -> !llvm.ptr
// CHECK: %[[Q1:.*]] = llvm.call @q2_rt_qubit(%[[R]], %[[NC]]) : (!llvm.ptr, i64) -> !llvm.ptr
// CHECK: %[[Q2:.*]] = llvm.call @q2_rt_qubit(%[[R]], %{{.*}}) : (!llvm.ptr, i64) -> !llvm.ptr
// CHECK-NEXT: llvm.store %[[Q0]], %[[TB]] : !llvm.ptr, !llvm.ptr
// CHECK-NEXT: llvm.call @q2_rt_gate(%[[H]], %[[F0]], %[[TB]], %[[NC]], %[[CB]], %[[I0]], %[[NOADJ]])
// CHECK-NEXT: llvm.store %[[Q0]], %[[TB]] : !llvm.ptr, !llvm.ptr
// CHECK-NEXT: llvm.store %[[Q1]], %[[S1]] : !llvm.ptr, !llvm.ptr
// CHECK-NEXT: llvm.store %[[Q2]], %[[S2]] : !llvm.ptr, !llvm.ptr
// CHECK-NEXT: %[[W:.*]] = llvm.mlir.addressof @__q2_pauli_XZY : !llvm.ptr
// CHECK-NEXT: llvm.call @q2_rt_pauli_rot(%[[T]], %[[W]], %[[TB]], %[[NT]], %[[CB]], %[[I0]])
// CHECK-NEXT: llvm.store %[[Q0]], %[[TB]] : !llvm.ptr, !llvm.ptr
// CHECK-NEXT: llvm.store %[[Q1]], %[[CB]] : !llvm.ptr, !llvm.ptr
// CHECK-NEXT: llvm.call @q2_rt_gate(%[[RZ]], %[[T]], %[[TB]], %[[NC]], %[[CB]], %[[NC]], %[[NOADJ]])
// CHECK-NEXT: llvm.call @q2_rt_measure(%[[Q0]])
// CHECK-NEXT: llvm.trunc
// CHECK-NEXT: llvm.call @q2_rt_dealloc(%[[R]])
// CHECK-NOT: quantum.
// CHECK-NOT: llvm.alloca
func.func @circuit(%t: f64) -> i1 {
  %r = quantum.alloc(3) : !quantum.reg
  %q0 = quantum.extract %r[0] : !quantum.reg -> !quantum.bit
  %q1 = quantum.extract %r[1] : !quantum.reg -> !quantum.bit
  %q2 = quantum.extract %r[2] : !quantum.reg -> !quantum.bit
  %a = quantum.custom "H"() %q0 : !quantum.bit
  %b:3 = quantum.pauli_rot "XZY"(%t) %a, %q1, %q2 : !quantum.bit, !quantum.bit, !quantum.bit
  %c, %cc = quantum.custom "RZ"(%t) %b#0 ctrls(%b#1) : !quantum.bit ctrls !quantum.bit
  %m, %d = quantum.measure %c : i1, !quantum.bit
  %r1 = quantum.insert %r[0], %d : !quantum.reg, !quantum.bit
  %r2 = quantum.insert %r1[1], %cc : !quantum.reg, !quantum.bit
  %r3 = quantum.insert %r2[2], %b#2 : !quantum.reg, !quantum.bit
  quantum.dealloc %r3 : !quantum.reg
  return %m : i1
}

// -----

// A loop carrying a qubit: after scf-to-cf the qubit flows through a block
// argument, which becomes !llvm.ptr; the scratch alloca stays in the entry
// block (loops do not grow the stack).
// CHECK-LABEL: func.func @loop
// CHECK-SAME: (%[[R:.*]]: !llvm.ptr, %{{.*}}: f64)
// CHECK: %[[TB:.*]] = llvm.alloca
// CHECK: llvm.alloca
// CHECK: %[[Q:.*]] = llvm.call @q2_rt_qubit(%[[R]], %{{.*}})
// CHECK: cf.br ^[[HDR:bb[0-9]+]](%{{.*}}, %[[Q]] : index, !llvm.ptr)
// CHECK: ^[[HDR]](%{{.*}}: index, %[[QA:.*]]: !llvm.ptr):
// CHECK-NOT: llvm.mlir.constant
// CHECK: llvm.store %[[QA]], %[[TB]]
// CHECK-NEXT: llvm.call @q2_rt_gate
// CHECK-NOT: llvm.alloca
// CHECK: return
func.func @loop(%r: !quantum.reg, %t: f64) -> !quantum.reg {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %q = quantum.extract %r[0] : !quantum.reg -> !quantum.bit
  %f = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %q) -> (!quantum.bit) {
    %b = quantum.custom "RX"(%t) %a : !quantum.bit
    scf.yield %b : !quantum.bit
  }
  %r1 = quantum.insert %r[0], %f : !quantum.reg, !quantum.bit
  return %r1 : !quantum.reg
}

// -----

// Bufferized probs: the runtime writes into the buffer at aligned pointer +
// offset; a register slice reads its qubits with q2_rt_qubit.
// CHECK-LABEL: func.func @probs
// CHECK-SAME: (%[[R:.*]]: !llvm.ptr, %[[BUF:.*]]: memref<4xf64>)
// CHECK: %[[N:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK: %[[TB:.*]] = llvm.alloca %[[N]] x !llvm.ptr
// CHECK: %[[I1:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK: %[[S1:.*]] = llvm.getelementptr %[[TB]][1]
// CHECK: %[[Q1:.*]] = llvm.call @q2_rt_qubit(%[[R]], %[[I1]])
// CHECK: %[[Q2:.*]] = llvm.call @q2_rt_qubit(%[[R]], %[[N]])
// CHECK: llvm.store %[[Q1]], %[[TB]]
// CHECK: llvm.store %[[Q2]], %[[S1]]
// CHECK: memref.extract_aligned_pointer_as_index %[[BUF]]
// CHECK: %[[OUT:.*]] = llvm.getelementptr {{.*}} -> !llvm.ptr, f64
// CHECK: llvm.call @q2_rt_probs(%[[TB]], %[[N]], %[[OUT]]) : (!llvm.ptr, i64, !llvm.ptr) -> ()
func.func @probs(%r: !quantum.reg, %buf: memref<4xf64>) {
  quantum.probs reg %r[1, 2] in(%buf : memref<4xf64>)
  return
}

// -----

// Each function gets its own scratch arrays (sized for its own widest op)
// and constants, made once; a function without gates gets none.
// CHECK-LABEL: func.func @first
// CHECK: %[[N1:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK: %[[A:.*]] = llvm.alloca %[[N1]] x !llvm.ptr
// CHECK: llvm.alloca
// CHECK-COUNT-4: llvm.mlir.constant
// CHECK-NOT: llvm.mlir.constant
// CHECK: llvm.store %{{.*}}, %[[A]]
// CHECK-NEXT: llvm.call @q2_rt_gate
// CHECK-NEXT: llvm.store %{{.*}}, %[[A]]
// CHECK-NEXT: llvm.call @q2_rt_gate
// CHECK-NOT: llvm.mlir.constant
// CHECK: return
// CHECK-LABEL: func.func @second
// CHECK: %[[N2:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK: %[[B:.*]] = llvm.alloca %[[N2]] x !llvm.ptr
// CHECK: llvm.call @q2_rt_gate
// CHECK-LABEL: func.func @none
// CHECK-NOT: llvm.alloca
// CHECK: return
func.func @first(%q: !quantum.bit) -> !quantum.bit {
  %a = quantum.custom "H"() %q : !quantum.bit
  %b = quantum.custom "H"() %a : !quantum.bit
  return %b : !quantum.bit
}
func.func @second(%q0: !quantum.bit, %q1: !quantum.bit) -> (!quantum.bit, !quantum.bit) {
  %a:2 = quantum.custom "SWAP"() %q0, %q1 : !quantum.bit, !quantum.bit
  return %a#0, %a#1 : !quantum.bit, !quantum.bit
}
func.func @none(%r: !quantum.reg) {
  quantum.dealloc %r : !quantum.reg
  return
}
