// q2-profile's per-pass IR figures (re-printing only the functions a pass
// changed, test/unit/Profiling/IRMetricsTest.cpp) equal MLIR's own print of
// what each pass ran on: --mlir-print-ir-after-all of the pipeline alone in
// stock mlir-opt-22, record by record. Inputs: the upstream tensor program
// through bufferization and LLVM lowering (functions measured after the
// nested pass, the module after the others); a module printed with a #map
// alias until the loops replace linalg.generic, with a global and a
// function no pass changes; a module with values at module level and a
// dialect resource (printed whole, not composed).
// Functions are measured with a counting printer (SizePrinter.cpp); with
// Q2_IR_METRICS_VERIFY=1 each count is also checked against MLIR's print.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mlir-opt-22 %S/Inputs/matmul-tensor.mlir -o /dev/null --mlir-disable-threading --mlir-print-ir-after-all \
// RUN:   --pass-pipeline='builtin.module(canonicalize,cse,one-shot-bufferize{bufferize-function-boundaries},func.func(convert-linalg-to-loops),convert-scf-to-cf,convert-to-llvm,reconcile-unrealized-casts)' 2> %t/d1.txt
// RUN: env Q2_IR_METRICS_VERIFY=1 mlir-opt-22 --load-pass-plugin=%q2_plugin %S/Inputs/matmul-tensor.mlir -o /dev/null \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="canonicalize,cse,one-shot-bufferize{bufferize-function-boundaries},func.func(convert-linalg-to-loops),convert-scf-to-cf,convert-to-llvm,reconcile-unrealized-casts" report=%t/r1.json})' 2> %t/verify1.txt
// RUN: %python %S/Inputs/ir_after_all_check.py %t/r1.json %t/d1.txt | FileCheck %s --check-prefix=TENSOR
// TENSOR: passes=8 ok
// TENSOR: convert-linalg-to-loops 2
// TENSOR: convert-to-llvm 1

// RUN: mlir-opt-22 %S/Inputs/aliases-globals.mlir -o /dev/null --mlir-disable-threading --mlir-print-ir-after-all \
// RUN:   --pass-pipeline='builtin.module(canonicalize,func.func(convert-linalg-to-loops,cse),lower-affine,convert-scf-to-cf,canonicalize,func.func(canonicalize))' 2> %t/d2.txt
// RUN: env Q2_IR_METRICS_VERIFY=1 mlir-opt-22 --load-pass-plugin=%q2_plugin %S/Inputs/aliases-globals.mlir -o /dev/null \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="canonicalize,func.func(convert-linalg-to-loops,cse),lower-affine,convert-scf-to-cf,canonicalize,func.func(canonicalize)" report=%t/r2.json})' 2> %t/verify2.txt
// RUN: %python %S/Inputs/ir_after_all_check.py %t/r2.json %t/d2.txt | FileCheck %s --check-prefix=ALIAS
// ALIAS: passes=13 ok

// RUN: mlir-opt-22 %S/Inputs/module-values.mlir -o /dev/null --allow-unregistered-dialect --mlir-disable-threading --mlir-print-ir-after-all \
// RUN:   --pass-pipeline='builtin.module(canonicalize,cse)' 2> %t/d3.txt
// RUN: env Q2_IR_METRICS_VERIFY=1 mlir-opt-22 --load-pass-plugin=%q2_plugin %S/Inputs/module-values.mlir -o /dev/null --allow-unregistered-dialect \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="canonicalize,cse" report=%t/r3.json})' 2> %t/verify3.txt
// RUN: %python %S/Inputs/ir_after_all_check.py %t/r3.json %t/d3.txt | FileCheck %s --check-prefix=VALUES
// VALUES: passes=2 ok

// The upstream sparsifier pipeline (a pass that runs a pipeline of its own,
// dumped after the passes it ran): modules whose aliases share a name,
// which MLIR numbers (#sparse, #sparse1; #map ... #map7), composed with
// that numbering.
// RUN: mlir-opt-22 %S/Inputs/llvm-project/dense_output.mlir -o /dev/null --mlir-disable-threading --mlir-print-ir-after-all \
// RUN:   --pass-pipeline='builtin.module(sparsifier)' 2> %t/d4.txt
// RUN: env Q2_IR_METRICS_VERIFY=1 mlir-opt-22 --load-pass-plugin=%q2_plugin %S/Inputs/llvm-project/dense_output.mlir -o /dev/null \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="sparsifier" report=%t/r4.json})' 2> %t/verify4.txt
// RUN: %python %S/Inputs/ir_after_all_check.py %t/r4.json %t/d4.txt | FileCheck %s --check-prefix=SPARSE
// SPARSE: passes=128 ok
// RUN: mlir-opt-22 %S/Inputs/sparse-kernels-x2.mlir -o /dev/null --mlir-disable-threading --mlir-print-ir-after-all \
// RUN:   --pass-pipeline='builtin.module(sparsifier)' 2> %t/d5.txt
// RUN: env Q2_IR_METRICS_VERIFY=1 mlir-opt-22 --load-pass-plugin=%q2_plugin %S/Inputs/sparse-kernels-x2.mlir -o /dev/null \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="sparsifier" report=%t/r5.json})' 2> %t/verify5.txt
// RUN: %python %S/Inputs/ir_after_all_check.py %t/r5.json %t/d5.txt | FileCheck %s --check-prefix=KERNELS
// KERNELS: passes=177 ok

// The op sizes counted without printing (SizePrinter.cpp) were each checked
// against MLIR's print of the op (Q2_IR_METRICS_VERIFY=1): no difference.
// RUN: cat %t/verify1.txt %t/verify2.txt %t/verify3.txt %t/verify4.txt %t/verify5.txt | count 0

// The checker fails when a figure and its print disagree.
// RUN: sed -i 's/^module {$/module  {/' %t/d1.txt
// RUN: not %python %S/Inputs/ir_after_all_check.py %t/r1.json %t/d1.txt 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: record 0 (canonicalize on builtin.module ): report says {{[0-9]+}} bytes
