// RUN: q2-opt %s --quantum-outline-chunks="max-gates=64 min-gates=2" --split-input-file | FileCheck %s

// A chunk's gates become one quantum.gate_table: wire w is the w-th qubit
// the chunk takes (the arguments come first, then what the parameters
// need), a record per gate (kind, adjoint, param, nT, nC, word, wires) in
// program order, and the parameters in a stack buffer (filled in place).
// CHECK-LABEL: func.func @table(
// CHECK-SAME: %[[C:.*]]: tensor<4xf64>, %[[F:.*]]: f64, %[[A:.*]]: !quantum.bit, %[[B:.*]]: !quantum.bit, %[[K:.*]]: !quantum.bit
// CHECK-NEXT: %[[R:.*]]:3 = call @table.chunk0(%[[A]], %[[B]], %[[K]], %[[C]], %[[F]])
// CHECK-NEXT: return %[[R]]#1, %[[R]]#2, %[[R]]#0
// CHECK: func.func private @table.chunk0(%[[A0:.*]]: !quantum.bit, %[[B0:.*]]: !quantum.bit, %[[K0:.*]]: !quantum.bit, %[[C0:.*]]: tensor<4xf64>, %[[F0:.*]]: f64)
// CHECK-SAME: attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"]}
// CHECK-NEXT: %[[BUF:.*]] = memref.alloca() : memref<1xf64>
// CHECK-NEXT: %[[T0:.*]] = bufferization.to_tensor %[[BUF]] restrict writable
// CHECK-NEXT: %[[I0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[E:.*]] = tensor.extract %[[C0]][%[[I0]]]
// CHECK-NEXT: %[[ANG:.*]] = arith.mulf %[[E]], %[[F0]]
// CHECK-NEXT: %[[P0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[T1:.*]] = tensor.insert %[[ANG]] into %[[T0]][%[[P0]]]
// CHECK-NEXT: %[[O:.*]]:3 = quantum.gate_table %[[A0]], %[[B0]], %[[K0]] params(%[[T1]] : tensor<1xf64>) kinds ["H", "pauli_rot", "X"] words "XZ" records [0, 0, -1, 1, 0, 0, 0, 1, 0, 0, 2, 1, 0, 0, 1, 2, 2, 0, -1, 1, 1, 0, 1, 0]
// CHECK-NEXT: return %[[O]]#2, %[[O]]#1, %[[O]]#0
// CHECK-NOT: quantum.custom
func.func @table(%c: tensor<4xf64>, %f: f64, %a: !quantum.bit, %b: !quantum.bit, %k: !quantum.bit) -> (!quantum.bit, !quantum.bit, !quantum.bit) {
  %i0 = arith.constant 0 : index
  %h = quantum.custom "H"() %a : !quantum.bit
  %e = tensor.extract %c[%i0] : tensor<4xf64>
  %t = arith.mulf %e, %f : f64
  %p:2, %pc = quantum.pauli_rot "XZ"(%t) %h, %b ctrls(%k) : !quantum.bit, !quantum.bit ctrls !quantum.bit
  %x, %xc = quantum.custom "X"() %p#1 ctrls(%p#0) : !quantum.bit ctrls !quantum.bit
  return %x, %xc, %pc : !quantum.bit, !quantum.bit, !quantum.bit
}

// -----

// Parameters computed the same way up to constants are computed in one
// loop: the constants that differ come from tables indexed by the loop
// (the extract index and the scale), the one that does not (0.5) stays a
// constant; the parameters take consecutive slots. The code is the same
// for five gates or five thousand.
// CHECK-LABEL: func.func private @reroll.chunk0(
// CHECK-SAME: %[[Q:.*]]: !quantum.bit, %[[C:.*]]: tensor<8xf64>, %[[F:.*]]: f64
// CHECK: %[[IDX:.*]] = arith.constant dense<[0, 1, 2, 3, 4]> : tensor<5xindex>
// CHECK: %[[SCALE:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00]> : tensor<5xf64>
// CHECK: %[[ACC:.*]] = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[T:.*]] = %{{.*}}) -> (tensor<5xf64>) {
// CHECK-NEXT: %[[J:.*]] = tensor.extract %[[IDX]][%[[I]]]
// CHECK-NEXT: %[[S:.*]] = tensor.extract %[[SCALE]][%[[I]]]
// CHECK-NEXT: %[[H:.*]] = arith.constant 5.000000e-01 : f64
// CHECK-NEXT: %[[E:.*]] = tensor.extract %[[C]][%[[J]]]
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[E]], %[[S]]
// CHECK-NEXT: %[[M2:.*]] = arith.mulf %[[M]], %[[H]]
// CHECK-NEXT: %[[V:.*]] = arith.mulf %[[M2]], %[[F]]
// CHECK-NEXT: %[[D:.*]] = arith.addi %[[I]], %{{.*}}
// CHECK-NEXT: %[[N:.*]] = tensor.insert %[[V]] into %[[T]][%[[D]]]
// CHECK-NEXT: scf.yield %[[N]]
// CHECK: quantum.gate_table %[[Q]] params(%[[ACC]] : tensor<5xf64>) kinds ["RZ"] records [0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0, 3, 1, 0, 0, 0, 0, 0, 4, 1, 0, 0, 0]
// CHECK-NOT: arith.mulf
func.func @reroll(%q: !quantum.bit, %c: tensor<8xf64>, %f: f64) -> !quantum.bit {
  %half = arith.constant 0.5 : f64
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %i2 = arith.constant 2 : index
  %i3 = arith.constant 3 : index
  %i4 = arith.constant 4 : index
  %s1 = arith.constant 1.0 : f64
  %s2 = arith.constant 2.0 : f64
  %s3 = arith.constant 3.0 : f64
  %s4 = arith.constant 4.0 : f64
  %s5 = arith.constant 5.0 : f64
  %e0 = tensor.extract %c[%i0] : tensor<8xf64>
  %m0 = arith.mulf %e0, %s1 : f64
  %h0 = arith.mulf %m0, %half : f64
  %a0 = arith.mulf %h0, %f : f64
  %g0 = quantum.custom "RZ"(%a0) %q : !quantum.bit
  %e1 = tensor.extract %c[%i1] : tensor<8xf64>
  %m1 = arith.mulf %e1, %s2 : f64
  %h1 = arith.mulf %m1, %half : f64
  %a1 = arith.mulf %h1, %f : f64
  %g1 = quantum.custom "RZ"(%a1) %g0 : !quantum.bit
  %e2 = tensor.extract %c[%i2] : tensor<8xf64>
  %m2 = arith.mulf %e2, %s3 : f64
  %h2 = arith.mulf %m2, %half : f64
  %a2 = arith.mulf %h2, %f : f64
  %g2 = quantum.custom "RZ"(%a2) %g1 : !quantum.bit
  %e3 = tensor.extract %c[%i3] : tensor<8xf64>
  %m3 = arith.mulf %e3, %s4 : f64
  %h3 = arith.mulf %m3, %half : f64
  %a3 = arith.mulf %h3, %f : f64
  %g3 = quantum.custom "RZ"(%a3) %g2 : !quantum.bit
  %e4 = tensor.extract %c[%i4] : tensor<8xf64>
  %m4 = arith.mulf %e4, %s5 : f64
  %h4 = arith.mulf %m4, %half : f64
  %a4 = arith.mulf %h4, %f : f64
  %g4 = quantum.custom "RZ"(%a4) %g3 : !quantum.bit
  return %g4 : !quantum.bit
}

// -----

// Constant parameters are in the buffer from the start (one copy of a
// constant tensor); only the computed one is stored by code.
// CHECK-LABEL: func.func private @constants.chunk0(
// CHECK: %[[T0:.*]] = bufferization.to_tensor
// CHECK: %[[CST:.*]] = arith.constant dense<[1.5707963267948966, 0.000000e+00, -1.5707963267948966]> : tensor<3xf64>
// CHECK: %[[T1:.*]] = tensor.insert_slice %[[CST]] into %[[T0]][0] [3] [1]
// CHECK: %[[Y:.*]] = arith.negf
// CHECK: %[[I1:.*]] = arith.constant 1 : index
// CHECK: %[[T2:.*]] = tensor.insert %[[Y]] into %[[T1]][%[[I1]]]
// CHECK: quantum.gate_table %{{.*}} params(%[[T2]] : tensor<3xf64>) kinds ["RX", "RZ"] records [0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 2, 1, 0, 0, 0]
func.func @constants(%q: !quantum.bit, %x: f64) -> !quantum.bit {
  %p = arith.constant 1.5707963267948966 : f64
  %m = arith.constant -1.5707963267948966 : f64
  %y = arith.negf %x : f64
  %0 = quantum.custom "RX"(%p) %q : !quantum.bit
  %1 = quantum.custom "RZ"(%y) %0 : !quantum.bit
  %2 = quantum.custom "RX"(%m) %1 : !quantum.bit
  return %2 : !quantum.bit
}

// -----

// A qubit value used by two gates is not a wire: no table, the gates are
// outlined as they are.
// CHECK-LABEL: func.func private @nonlinear.chunk0(
// CHECK-NOT: gate_table
// CHECK: quantum.custom "H"
// CHECK: quantum.custom "X"
// CHECK: quantum.custom "Z"
func.func @nonlinear(%q: !quantum.bit) -> (!quantum.bit, !quantum.bit) {
  %0 = quantum.custom "H"() %q : !quantum.bit
  %1 = quantum.custom "X"() %q : !quantum.bit
  %2 = quantum.custom "Z"() %0 : !quantum.bit
  return %2, %1 : !quantum.bit, !quantum.bit
}
