// q2-profile in stock mlir-opt-22: an upstream bufferization + LLVM lowering
// pipeline on a linalg matmul / scf loop program leaves exactly the module
// the pipeline alone leaves, and every pass (the nested func.func one per
// function) is in the report and the trace.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mlir-opt-22 %S/Inputs/matmul-tensor.mlir -o %t/in.mlir
// RUN: mlir-opt-22 %S/Inputs/matmul-tensor.mlir -o %t/plain.mlir \
// RUN:   --pass-pipeline='builtin.module(canonicalize,cse,one-shot-bufferize{bufferize-function-boundaries},func.func(convert-linalg-to-loops),convert-scf-to-cf,convert-to-llvm,reconcile-unrealized-casts)'
// RUN: mlir-opt-22 --load-pass-plugin=%q2_plugin %S/Inputs/matmul-tensor.mlir -o %t/profiled.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="canonicalize,cse,one-shot-bufferize{bufferize-function-boundaries},func.func(convert-linalg-to-loops),convert-scf-to-cf,convert-to-llvm,reconcile-unrealized-casts" report=%t/r.json trace=%t/t.json})'
// RUN: diff %t/plain.mlir %t/profiled.mlir
// RUN: FileCheck %s --input-file=%t/profiled.mlir
// RUN: %python %S/Inputs/profile_check.py %t/r.json --trace %t/t.json \
// RUN:   --stages 'Input;canonicalize;cse;one-shot-bufferize;func.func(convert-linalg-to-loops);convert-scf-to-cf;convert-to-llvm;reconcile-unrealized-casts' \
// RUN:   --input-bytes-of %t/in.mlir --final-bytes-of %t/plain.mlir \
// RUN:   --nested convert-linalg-to-loops=matmul,accumulate | FileCheck %s --check-prefix=REP
//
// The same with the builtin.module(...) wrapper inside, and without per-pass
// IR metrics: same module, no IR sizes at all, time and memory still there.
// RUN: mlir-opt-22 --load-pass-plugin=%q2_plugin %S/Inputs/matmul-tensor.mlir -o %t/noir.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="builtin.module(canonicalize,cse,one-shot-bufferize{bufferize-function-boundaries},func.func(convert-linalg-to-loops),convert-scf-to-cf,convert-to-llvm,reconcile-unrealized-casts)" ir-metrics=false report=%t/noir.json})'
// RUN: diff %t/plain.mlir %t/noir.mlir
// RUN: %python %S/Inputs/profile_check.py %t/noir.json --no-pass-ir
//
// q2-opt (mlir-opt mode) has the pass too (with the upstream passes it
// registers: convert-to-llvm is not one of them).
// RUN: mlir-opt-22 %S/Inputs/matmul-tensor.mlir -o %t/plain2.mlir \
// RUN:   --pass-pipeline='builtin.module(canonicalize,cse,one-shot-bufferize{bufferize-function-boundaries},func.func(convert-linalg-to-loops),convert-scf-to-cf)'
// RUN: q2-opt %S/Inputs/matmul-tensor.mlir -o %t/q2opt.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="canonicalize,cse,one-shot-bufferize{bufferize-function-boundaries},func.func(convert-linalg-to-loops),convert-scf-to-cf" report=%t/q2opt.json})'
// RUN: diff %t/plain2.mlir %t/q2opt.mlir
// RUN: %python %S/Inputs/profile_check.py %t/q2opt.json --final-bytes-of %t/plain2.mlir
//
// q2-profile compare reads the pass's report with the project's reader: a
// report against itself, every pass row shown (--all), exit 0.
// RUN: q2-profile compare %t/r.json %t/r.json --all | FileCheck %s --check-prefix=CMP
//
// Listed in --help once the plugin is loaded.
// RUN: mlir-opt-22 --load-pass-plugin=%q2_plugin --help | FileCheck %s --check-prefix=HELP

// HELP: --q2-profile - Run a pass pipeline on the module and profile
// HELP-DAG: --ir-metrics
// HELP-DAG: --pipeline=
// HELP-DAG: --report=
// HELP-DAG: --trace=

// CHECK: llvm.func @matmul
// CHECK: llvm.func @accumulate
// CHECK-NOT: scf.for
// CHECK-NOT: linalg.

// REP: stage Input ir=[[IN:[0-9]+]] peak=
// REP: stage reconcile-unrealized-casts ir=
// REP: pass 0 'func.func' Pipeline on builtin.module ir=-
// REP-NEXT: pass 1 convert-linalg-to-loops on func.func@matmul ir=
// REP-NEXT: pass 1 convert-linalg-to-loops on func.func@accumulate ir=
// REP: OK 8 stages 9 passes

// CMP: convert-to-llvm wall_s
// CMP: -to-loops) / convert-linalg-to-loops wall_s
// CMP: compile wall_s
// CMP: verdict: no regression
