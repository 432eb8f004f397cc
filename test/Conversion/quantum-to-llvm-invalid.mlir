// RUN: q2-opt %s --convert-quantum-to-llvm --split-input-file --verify-diagnostics

// probs must be bufferized first (the runtime writes into a buffer).
func.func @tensor_probs(%q0: !quantum.bit, %q1: !quantum.bit) -> tensor<4xf64> {
  // expected-error @+1 {{failed to legalize operation 'quantum.probs' that was explicitly marked illegal}}
  %p = quantum.probs %q0, %q1 : tensor<4xf64>
  return %p : tensor<4xf64>
}

// -----

// A gate table reads its parameters from memory: bufferize first.
func.func @tensor_params(%q: !quantum.bit, %p: tensor<1xf64>) -> !quantum.bit {
  // expected-error @+1 {{failed to legalize operation 'quantum.gate_table' that was explicitly marked illegal}}
  %o = quantum.gate_table %q params(%p : tensor<1xf64>) kinds ["RZ"] records [0, 0, 0, 1, 0, 0, 0] : !quantum.bit
  return %o : !quantum.bit
}
