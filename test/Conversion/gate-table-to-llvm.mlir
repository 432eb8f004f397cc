// RUN: q2-opt %s --convert-quantum-to-llvm --split-input-file | FileCheck %s

// A gate table is one loop over a constant copy of its records, each kind
// replaced by its runtime gate id (H = 1, X = 2; -1 for a Pauli rotation):
// per record the wires' handles are copied from the handles array into the
// targets/controls arrays, then one call. One call site per kind of call,
// whatever the number of gates; the handles go back unchanged. Every back
// edge says llvm.loop.disable_nonforced: the loops make runtime calls, so
// vectorizing or unrolling them would only cost compile time.
// CHECK: #[[PLAIN:[a-z_0-9]+]] = #llvm.loop_annotation<disableNonforced = true>
// CHECK-DAG: llvm.mlir.global private constant @[[WORDS:__q2_words_[0-9]+]]("XZ")
// CHECK-DAG: llvm.mlir.global private constant @[[GATES:__q2_gates_[0-9]+]](dense<[1, 0, -1, 1, 0, 0, 0, 2, 0, -1, 1, 1, 0, 1, 0, -1, 0, 0, 2, 1, 0, 1, 2, 0]> : tensor<24xi32>) {{.*}} : !llvm.array<24 x i32>
// CHECK-LABEL: func.func @table
// CHECK-SAME: (%[[Q0:.*]]: !llvm.ptr, %[[Q1:.*]]: !llvm.ptr, %[[Q2:.*]]: !llvm.ptr, %[[P:.*]]: memref<1xf64>)
// CHECK: %[[N2:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK: %[[TB:.*]] = llvm.alloca %[[N2]] x !llvm.ptr
// CHECK: %[[N1:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK: %[[CB:.*]] = llvm.alloca %[[N1]] x !llvm.ptr
// CHECK: %[[N3:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK: %[[HB:.*]] = llvm.alloca %[[N3]] x !llvm.ptr
// CHECK: llvm.store %[[Q0]], %[[HB]]
// CHECK: llvm.store %[[Q1]], %{{.*}}
// CHECK: llvm.store %[[Q2]], %{{.*}}
// CHECK: memref.extract_aligned_pointer_as_index %[[P]]
// CHECK: %[[PP:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f64
// CHECK: %[[TBL:.*]] = llvm.mlir.addressof @[[GATES]]
// CHECK: %[[W:.*]] = llvm.mlir.addressof @[[WORDS]]
// CHECK: %[[END:.*]] = llvm.getelementptr %[[TBL]][24] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK: llvm.br ^[[HDR:bb[0-9]+]](%[[TBL]] : !llvm.ptr)
// CHECK: ^[[HDR]](%[[REC:.*]]: !llvm.ptr):
// CHECK: llvm.icmp "eq" %[[REC]], %[[END]]
// CHECK: llvm.cond_br %{{.*}}, ^[[EXIT:bb[0-9]+]], ^
// CHECK: llvm.getelementptr %[[HB]][%{{.*}}]
// CHECK: llvm.store %{{.*}}, %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK: llvm.br ^{{bb[0-9]+}}(%{{.*}} : i32) {loop_annotation = #[[PLAIN]]}
// CHECK: llvm.getelementptr %[[PP]][%{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, f64
// CHECK: llvm.cond_br %{{.*}}, ^[[PAULI:bb[0-9]+]], ^[[GATE:bb[0-9]+]]
// CHECK: llvm.br ^[[HDR]](%{{.*}} : !llvm.ptr) {loop_annotation = #[[PLAIN]]}
// CHECK: ^[[GATE]]:
// CHECK-NEXT: llvm.call @q2_rt_gate(%{{.*}}, %{{.*}}, %[[TB]], %{{.*}}, %[[CB]], %{{.*}}, %{{.*}})
// CHECK: ^[[PAULI]]:
// CHECK: llvm.getelementptr %[[W]][%{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, i8
// CHECK: llvm.call @q2_rt_pauli_rot(%{{.*}}, %{{.*}}, %[[TB]], %{{.*}}, %[[CB]], %{{.*}})
// CHECK: ^[[EXIT]]:
// CHECK-NEXT: return %[[Q0]], %[[Q1]], %[[Q2]]
// CHECK-NOT: llvm.call
// CHECK-NOT: quantum.
func.func @table(%q0: !quantum.bit, %q1: !quantum.bit, %q2: !quantum.bit, %p: memref<1xf64>) -> (!quantum.bit, !quantum.bit, !quantum.bit) {
  %o:3 = quantum.gate_table %q0, %q1, %q2 params(%p : memref<1xf64>) kinds ["H", "X", "pauli_rot"] words "XZ"
           records [0, 0, -1, 1, 0, 0, 0,  1, 0, -1, 1, 1, 0, 1, 0,  2, 0, 0, 2, 1, 0, 1, 2, 0]
           : !quantum.bit, !quantum.bit, !quantum.bit
  return %o#0, %o#1, %o#2 : !quantum.bit, !quantum.bit, !quantum.bit
}

// -----

// Gates only: no Pauli words and no Pauli call; no parameters: 0.0.
// CHECK-NOT: __q2_words
// CHECK-LABEL: func.func @gates_only
// CHECK: llvm.call @q2_rt_gate
// CHECK-NOT: q2_rt_pauli_rot
// CHECK: return
func.func @gates_only(%q0: !quantum.bit) -> !quantum.bit {
  %o = quantum.gate_table %q0 kinds ["H"] records [0, 0, -1, 1, 0, 0, 0,  0, 0, -1, 1, 0, 0, 0] : !quantum.bit
  return %o : !quantum.bit
}

// -----

// An empty table is its qubits.
// CHECK-LABEL: func.func @empty
// CHECK-SAME: (%[[Q:.*]]: !llvm.ptr)
// CHECK-NEXT: return %[[Q]]
func.func @empty(%q0: !quantum.bit) -> !quantum.bit {
  %o = quantum.gate_table %q0 kinds [] records [] : !quantum.bit
  return %o : !quantum.bit
}

// -----

// pauli_rot_ladder records (kind -2) call the module's decomposition,
// which has q2_rt_pauli_rot's signature and calls q2_rt_gate only: per
// letter H (id 1) for X, RX(+pi/2) (id 7) for Y; the CNOT ladder (X, id 2,
// one control) up over the non-I letters; RZ (id 9) with the controls, or
// without letters PhaseShift(-theta/2) (id 10) on the last control; the
// ladder down; H and RX(-pi/2). Its loops are plain too.
// CHECK: #[[PLAIN:[a-z_0-9]+]] = #llvm.loop_annotation<disableNonforced = true>
// CHECK: llvm.func private @__q2_pauli_rot_ladder(%[[TH:.*]]: f64, %{{.*}}: !llvm.ptr, %[[T:.*]]: !llvm.ptr, %{{.*}}: i64, %[[C:.*]]: !llvm.ptr, %[[NC:.*]]: i64)
// CHECK-DAG: %[[H:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-DAG: %[[RX:.*]] = llvm.mlir.constant(7 : i32) : i32
// CHECK-DAG: %[[X:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-DAG: %[[RZ:.*]] = llvm.mlir.constant(9 : i32) : i32
// CHECK-DAG: %[[PS:.*]] = llvm.mlir.constant(10 : i32) : i32
// CHECK-DAG: %[[PI2:.*]] = llvm.mlir.constant(1.5707963267948966 : f64) : f64
// CHECK-DAG: %[[MPI2:.*]] = llvm.mlir.constant(-1.5707963267948966 : f64) : f64
// CHECK: llvm.call @q2_rt_gate(%[[PS]], %{{.*}}, %{{.*}}, %{{.*}}, %[[C]], %{{.*}}, %{{.*}})
// CHECK: llvm.call @q2_rt_gate(%[[H]],
// CHECK: llvm.call @q2_rt_gate(%[[RX]], %[[PI2]],
// CHECK: llvm.br ^{{bb[0-9]+}}(%{{.*}} : i64) {loop_annotation = #[[PLAIN]]}
// CHECK: llvm.call @q2_rt_gate(%[[X]],
// CHECK: llvm.call @q2_rt_gate(%[[RZ]], %[[TH]], %{{.*}}, %{{.*}}, %[[C]], %[[NC]],
// CHECK: llvm.call @q2_rt_gate(%[[X]],
// CHECK: llvm.call @q2_rt_gate(%[[H]],
// CHECK: llvm.call @q2_rt_gate(%[[RX]], %[[MPI2]],
// CHECK-NOT: llvm.call
// CHECK: llvm.mlir.global private constant @{{__q2_gates_[0-9]+}}(dense<[-2, 0, 0, 2, 1, 0, 1, 2, 0]> : tensor<9xi32>)
// CHECK-LABEL: func.func @ladder
// CHECK: llvm.call @__q2_pauli_rot_ladder(
// CHECK-NOT: q2_rt_pauli_rot
// CHECK: {{^}}    return
func.func @ladder(%c: !quantum.bit, %a: !quantum.bit, %b: !quantum.bit, %p: memref<2xf64>) -> (!quantum.bit, !quantum.bit, !quantum.bit) {
  %o:3 = quantum.gate_table %c, %a, %b params(%p : memref<2xf64>) kinds ["pauli_rot_ladder"] words "XY"
           records [0, 0, 0, 2, 1, 0, 1, 2, 0]
           : !quantum.bit, !quantum.bit, !quantum.bit
  return %o#0, %o#1, %o#2 : !quantum.bit, !quantum.bit, !quantum.bit
}

// -----

// Both rotation kinds in one table: chosen per record (kind == -2).
// CHECK-LABEL: func.func @mixed
// CHECK: %[[M2:.*]] = llvm.mlir.constant(-2 : i32) : i32
// CHECK: %[[K:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i32
// CHECK: llvm.icmp "eq" %[[K]], %[[M2]]
// CHECK-DAG: llvm.call @__q2_pauli_rot_ladder(
// CHECK-DAG: llvm.call @q2_rt_pauli_rot(
func.func @mixed(%c: !quantum.bit, %a: !quantum.bit, %p: memref<2xf64>) -> (!quantum.bit, !quantum.bit) {
  %o:2 = quantum.gate_table %c, %a params(%p : memref<2xf64>) kinds ["pauli_rot_ladder", "pauli_rot"] words "X"
           records [0, 0, 0, 1, 1, 0, 1, 0,  1, 0, 1, 1, 1, 0, 1, 0]
           : !quantum.bit, !quantum.bit
  return %o#0, %o#1 : !quantum.bit, !quantum.bit
}
