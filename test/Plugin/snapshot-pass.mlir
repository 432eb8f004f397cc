// q2-snapshot in stock mlir-opt-22: two snapshots around a peephole pipeline
// give two records, in pipeline order, whose IR bytes/lines are exactly
// those of the module at that point (the round-tripped input and the final
// output, measured with wc-like counting in Python), and the IR shrinks.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mlir-opt-22 --load-dialect-plugin=%q2_plugin %s -o %t/in.mlir
// RUN: mlir-opt-22 --load-dialect-plugin=%q2_plugin --load-pass-plugin=%q2_plugin %s \
// RUN:   --pass-pipeline='builtin.module(q2-snapshot{label=before report=%t/s.json},func.func(quantum-cancel-inverses,quantum-merge-rotations),q2-snapshot{label=after report=%t/s.json})' \
// RUN:   -o %t/out.mlir
// RUN: FileCheck %s --input-file=%t/out.mlir
// RUN: %python %S/Inputs/snapshot_check.py %t/s.json --labels before,after \
// RUN:   --ir-bytes-of %t/in.mlir %t/out.mlir --shrinks | FileCheck %s --check-prefix=REC
// The same pipeline through q2-opt appends two more records to the report.
// RUN: q2-opt %s -o %t/out2.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-snapshot{label=before report=%t/s.json},func.func(quantum-cancel-inverses,quantum-merge-rotations),q2-snapshot{label=after report=%t/s.json})'
// RUN: cmp %t/out.mlir %t/out2.mlir
// RUN: %python %S/Inputs/snapshot_check.py %t/s.json --labels before,after,before,after \
// RUN:   --ir-bytes-of %t/in.mlir %t/out.mlir %t/in.mlir %t/out.mlir
// The pass does not change the module, and works with the default label.
// RUN: mlir-opt-22 --load-dialect-plugin=%q2_plugin --load-pass-plugin=%q2_plugin %s \
// RUN:   --pass-pipeline='builtin.module(q2-snapshot{report=%t/only.json})' -o %t/same.mlir
// RUN: cmp %t/in.mlir %t/same.mlir
// RUN: %python %S/Inputs/snapshot_check.py %t/only.json --labels snapshot --ir-bytes-of %t/in.mlir
// It is listed in --help once the plugin is loaded.
// RUN: mlir-opt-22 --load-pass-plugin=%q2_plugin --help | FileCheck %s --check-prefix=HELP

// HELP: --q2-snapshot - Append a memory snapshot
// HELP: --label=
// HELP: --report=

// REC: before ir=[[B:[0-9]+]] lines=
// REC-NEXT: after ir=
// REC-NEXT: OK 2 records

// CHECK-LABEL: func.func @peepholes
// CHECK: arith.addf
// CHECK-NEXT: quantum.custom "RY"
// CHECK-NEXT: return
func.func @peepholes(%q: !quantum.bit, %t: f64) -> !quantum.bit {
  %a = quantum.custom "H"() %q : !quantum.bit
  %b = quantum.custom "H"() %a : !quantum.bit
  %c = quantum.custom "RY"(%t) %b : !quantum.bit
  %d = quantum.custom "RY"(%t) %c : !quantum.bit
  return %d : !quantum.bit
}
