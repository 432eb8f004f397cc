// Pass records are named as --mlir-timing names the passes, also passes
// that run pipelines of their own (regression: `inline` was recorded as
// "Inline,func.func,func.funcr" and sparsification-and-bufferization as
// "SparsificationAndBufferizatio,builtin.module,builtin.modulen"), and
// nested-pipeline adaptors are named as --mlir-timing names the pipeline.
// The input is an upstream sparse-tensor integration test
// (Inputs/llvm-project/README.md).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: mlir-opt-22 %S/Inputs/llvm-project/dense_output.mlir -o /dev/null \
// RUN:   --mlir-disable-threading --mlir-timing --mlir-timing-display=tree \
// RUN:   --pass-pipeline='builtin.module(inline,sparsification-and-bufferization,func.func(canonicalize))' \
// RUN:   2> %t/timing.txt
// RUN: mlir-opt-22 --load-pass-plugin=%q2_plugin %S/Inputs/llvm-project/dense_output.mlir -o /dev/null \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="inline,sparsification-and-bufferization,func.func(canonicalize)" report=%t/r.json})'
// RUN: %python %S/Inputs/pass_names_check.py %t/r.json %t/timing.txt \
// RUN:   --timer-may-merge StageSparseOperations | FileCheck %s
//
// The same pass names from q2-opt's own pass manager (--profile-passes on
// an MLIR program), whose --mlir-timing it prints for every stage.
// RUN: q2-qpe %examples/hamiltonians/h2_0.7414.FCIDUMP --n-est 3 --n-trotter 2 -o %t/h2.mlir
// RUN: q2-opt %t/h2.mlir --run 0 -o %t/h2.o \
// RUN:   --profile-passes --report %t/q2.json --mlir-timing --mlir-timing-display=tree 2> %t/q2timing.txt
// RUN: %python %S/Inputs/pass_names_check.py %t/q2.json %t/q2timing.txt | FileCheck %s --check-prefix=Q2

// CHECK: record Inliner
// CHECK: record Canonicalizer
// CHECK: record SparsificationAndBufferization
// CHECK: record PreSparsificationRewrite
// CHECK: record 'func.func' Pipeline
// CHECK: record EmptyTensorToAllocTensorPass
// CHECK: record StageSparseOperations
// CHECK: record SparseTensorCodegen
// MLIR's timer may merge the second func.func pipeline inside
// SparsificationAndBufferization into another timer and then does not
// print its pass (on some machines only: timers are keyed by pass
// address); the record is there either way (the pass ran, once per
// function), hence --timer-may-merge above.
// CHECK-NOT: missing-from
// CHECK: checked 14 names

// Q2-NOT: missing-from
// Q2: checked
