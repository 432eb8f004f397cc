// convert-qpe-to-llvm: the qpe.metadata attribute becomes the object's
// .q2.qpe JSON, the .q2.qpe.io buffer sizes and __q2_qpe_shape; the
// attribute is gone afterwards. A module without it is left alone; one
// that already defines a reserved symbol is refused.
// RUN: q2-opt %s --convert-qpe-to-llvm --split-input-file --verify-diagnostics | FileCheck %s

// CHECK-LABEL: module {
// CHECK-NOT: qpe.metadata
// CHECK: llvm.mlir.global external constant @__q2_qpe_metadata("{{.*}}\22format\22:\22q2.qpe/2\22{{.*}}\22n_est\22:2,{{.*}}\22words\22:[\22I\22,\22Z\22]}") {addr_space = 0 : i32, section = ".q2.qpe"}
// CHECK: llvm.mlir.global external constant @__q2_qpe_io("q2.qpe.io/1 coeffs=2 result=4") {addr_space = 0 : i32, section = ".q2.qpe.io"}
// CHECK: llvm.func @__q2_qpe_shape(%[[OUT:.*]]: !llvm.ptr) {
// CHECK: %[[SLOT0:.*]] = llvm.getelementptr %[[OUT]][0]
// CHECK: %[[COEFFS:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK: llvm.store %[[COEFFS]], %[[SLOT0]]
// CHECK: %[[SLOT1:.*]] = llvm.getelementptr %[[OUT]][1]
// CHECK: %[[RESULT:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK: llvm.store %[[RESULT]], %[[SLOT1]]
// CHECK: llvm.return
module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 1, n_est = 2, n_trotter = 1, n_terms = 2, order = 1, mode = "dynamic", power = "time", unroll = false, base_time = 0.52359877559829882, energy_shift = 1.5, resolution = 0.75, words = ["I", "Z"], default_coeffs = [-0.098863969784271615, 0.33333333333333331]>} {
  func.func @qpe(%c: tensor<2xf64>) -> tensor<4xf64> {
    %z = arith.constant dense<0.0> : tensor<4xf64>
    return %z : tensor<4xf64>
  }
}

// -----

// No metadata: nothing to lower.
// CHECK-LABEL: module {
// CHECK-NEXT: func.func @f()
// CHECK-NOT: llvm.mlir.global
module {
  func.func @f() {
    return
  }
}

// -----

module attributes {qpe.metadata = #qpe.metadata<molecule = "H2", n_system = 1, n_est = 1, n_trotter = 1, n_terms = 1, order = 1, mode = "fixed", power = "time", unroll = false, base_time = 1.0, energy_shift = 0.0, resolution = 0.1, words = ["Z"], default_coeffs = [1.0]>} {
  func.func @qpe() -> tensor<2xf64> {
    %z = arith.constant dense<0.0> : tensor<2xf64>
    return %z : tensor<2xf64>
  }
  // expected-error @+1 {{'__q2_qpe_io' is reserved for the lowered 'qpe.metadata' attribute}}
  llvm.mlir.global external constant @__q2_qpe_io("x") : !llvm.array<1 x i8>
}
