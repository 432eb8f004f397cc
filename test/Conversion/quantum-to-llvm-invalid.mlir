// RUN: q2-opt %s --convert-quantum-to-llvm --split-input-file --verify-diagnostics

// probs must be bufferized first (the runtime writes into a buffer).
func.func @tensor_probs(%q0: !quantum.bit, %q1: !quantum.bit) -> tensor<4xf64> {
  // expected-error @+1 {{failed to legalize operation 'quantum.probs' that was explicitly marked illegal}}
  %p = quantum.probs %q0, %q1 : tensor<4xf64>
  return %p : tensor<4xf64>
}
