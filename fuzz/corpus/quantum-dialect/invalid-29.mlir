func.func @probs_range_size(%r: !quantum.reg) {
  %p = quantum.probs reg %r[0, 3] : tensor<4xf64>
  return
}
