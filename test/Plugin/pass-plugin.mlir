// Stock mlir-opt-22 runs q2 passes from the plugin through --pass-pipeline.
// RUN: mlir-opt-22 --load-dialect-plugin=%q2_plugin --load-pass-plugin=%q2_plugin %s \
// RUN:   --pass-pipeline='builtin.module(func.func(quantum-cancel-inverses,quantum-merge-rotations))' | FileCheck %s
// The passes are listed in --help once the plugin is loaded.
// RUN: mlir-opt-22 --load-pass-plugin=%q2_plugin --help | FileCheck %s --check-prefix=HELP
// Loading the plugin into q2-opt itself (which already has everything) is harmless.
// RUN: q2-opt --load-dialect-plugin=%q2_plugin --load-pass-plugin=%q2_plugin %s \
// RUN:   --pass-pipeline='builtin.module(func.func(quantum-cancel-inverses,quantum-merge-rotations))' | FileCheck %s
// A missing plugin is a clean error, not a crash.
// RUN: not mlir-opt-22 --load-pass-plugin=%t.missing.so %s 2>&1 | FileCheck %s --check-prefix=MISSING

// HELP: --quantum-cancel-inverses
// HELP: --quantum-merge-rotations
// MISSING: Failed to load passes from '{{.*}}missing.so'

// CHECK-LABEL: func.func @peepholes
// CHECK-SAME: (%[[Q:.*]]: !quantum.bit, %[[T:.*]]: f64)
// CHECK: %[[S:.*]] = arith.addf %[[T]], %[[T]]
// CHECK: %[[R:.*]] = quantum.custom "RY"(%[[S]]) %[[Q]] : !quantum.bit
// CHECK-NOT: quantum.custom
// CHECK: return %[[R]]
func.func @peepholes(%q: !quantum.bit, %t: f64) -> !quantum.bit {
  %a = quantum.custom "H"() %q : !quantum.bit
  %b = quantum.custom "H"() %a : !quantum.bit
  %c = quantum.custom "RY"(%t) %b : !quantum.bit
  %d = quantum.custom "RY"(%t) %c : !quantum.bit
  return %d : !quantum.bit
}
