func.func @probs_range_out_of_register() {
  %r = quantum.alloc(4) : !quantum.reg
  %p = quantum.probs reg %r[3, 2] : tensor<4xf64>
  return
}
