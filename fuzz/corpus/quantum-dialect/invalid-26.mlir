func.func @probs_empty_range(%r: !quantum.reg) {
  %p = quantum.probs reg %r[0, 0] : tensor<1xf64>
  return
}
