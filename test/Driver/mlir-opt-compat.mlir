// q2-opt behaves like mlir-opt: -o, --split-input-file, --mlir-timing,
// --pass-pipeline with upstream passes on the pipeline's dialects.
// RUN: q2-opt %s --split-input-file -o %t.mlir && FileCheck %s --input-file=%t.mlir
// RUN: q2-opt %s --split-input-file --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIMING
// RUN: q2-opt %s --split-input-file --pass-pipeline='builtin.module(canonicalize,cse)' | FileCheck %s --check-prefix=CANON
// RUN: q2-opt --help | FileCheck %s --check-prefix=HELP
// Upstream passes are listed by --help-hidden (--help shows q2's; help.test).
// RUN: q2-opt --help-hidden | FileCheck %s --check-prefix=HIDDEN

// TIMING: Execution time report
// TIMING: Total Execution Time
// HELP-DAG: --pass-pipeline
// HELP-DAG: --quantum-cancel-inverses
// HIDDEN-DAG: --one-shot-bufferize
// HIDDEN-DAG: --tosa-to-linalg
// HIDDEN-DAG: --convert-func-to-llvm
// HIDDEN-DAG: --finalize-memref-to-llvm

// CHECK-LABEL: func.func @tosa
// CHECK: tosa.mul
// CANON-LABEL: func.func @tosa
func.func @tosa(%a: tensor<3xf64>, %b: tensor<3xf64>) -> tensor<3xf64> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.mul %a, %b, %shift : (tensor<3xf64>, tensor<3xf64>, tensor<1xi8>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}

// -----

// CHECK-LABEL: func.func @dialects
// CANON-LABEL: func.func @dialects
// CANON: scf.yield
// CANON-NOT: arith.addf
// CANON: return
func.func @dialects(%m: memref<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %z) -> f64 {
    %v = memref.load %m[%i] : memref<4xf64>
    %e = math.exp %v : f64
    %n = arith.addf %acc, %e : f64
    scf.yield %n : f64
  }
  %unused = arith.addf %s, %s : f64
  return %s : f64
}
