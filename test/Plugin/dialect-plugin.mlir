// The stock mlir-opt-22 parses, verifies and round-trips quantum IR once the
// plugin is loaded, and rejects invalid quantum IR through our verifiers.
// RUN: mlir-opt-22 --load-dialect-plugin=%q2_plugin %s | mlir-opt-22 --load-dialect-plugin=%q2_plugin | FileCheck %s
// RUN: mlir-opt-22 --load-dialect-plugin=%q2_plugin %s --mlir-print-op-generic | mlir-opt-22 --load-dialect-plugin=%q2_plugin | FileCheck %s
// Without the plugin, stock mlir-opt does not know the dialect.
// RUN: not mlir-opt-22 %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN
// RUN: not mlir-opt-22 --load-dialect-plugin=%q2_plugin %S/Inputs/invalid-word.mlir 2>&1 | FileCheck %s --check-prefix=INVALID

// NOPLUGIN: Dialect `quantum' not found
// INVALID: invalid-word.mlir:3:{{[0-9]+}}: error: 'quantum.pauli_rot' op Pauli word 'XW' has letter 'W'

// CHECK-LABEL: func.func @circuit
// CHECK: quantum.alloc(2) : !quantum.reg
// CHECK: quantum.custom "H"() %{{.*}} : !quantum.bit
// CHECK: quantum.pauli_rot "XZ"(%{{.*}}) %{{.*}}, %{{.*}} : !quantum.bit, !quantum.bit
// CHECK: quantum.probs %{{.*}}, %{{.*}} : tensor<4xf64>
func.func @circuit(%t: f64) -> tensor<4xf64> {
  %r = quantum.alloc(2) : !quantum.reg
  %q0 = quantum.extract %r[0] : !quantum.reg -> !quantum.bit
  %q1 = quantum.extract %r[1] : !quantum.reg -> !quantum.bit
  %a = quantum.custom "H"() %q0 : !quantum.bit
  %b:2 = quantum.pauli_rot "XZ"(%t) %a, %q1 : !quantum.bit, !quantum.bit
  %p = quantum.probs %b#0, %b#1 : tensor<4xf64>
  quantum.dealloc %r : !quantum.reg
  return %p : tensor<4xf64>
}
