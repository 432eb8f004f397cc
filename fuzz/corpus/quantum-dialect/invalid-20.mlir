func.func @probs_size(%q0: !quantum.bit, %q1: !quantum.bit) {
  %p = quantum.probs %q0, %q1 : tensor<8xf64>
  return
}
