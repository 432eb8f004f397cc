func.func @probs_list_and_range(%q0: !quantum.bit, %r: !quantum.reg) {
  %p = quantum.probs %q0 reg %r[0, 1] : tensor<2xf64>
  return
}
