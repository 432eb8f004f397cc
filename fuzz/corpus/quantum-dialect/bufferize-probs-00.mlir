// The tensor result of quantum.probs becomes a fresh buffer that the op
// writes in place (the out-buffer form the conversion needs).
func.func @probs(%q0: !quantum.bit, %q1: !quantum.bit) -> tensor<4xf64> {
  %p = quantum.probs %q0, %q1 : tensor<4xf64>
  return %p : tensor<4xf64>
}
