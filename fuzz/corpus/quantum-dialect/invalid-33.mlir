func.func @probs_range_count_huge() -> tensor<4xf64> {
  %r = quantum.alloc(2) : !quantum.reg
  %p = quantum.probs reg %r[0, 63] : tensor<4xf64>
  return %p : tensor<4xf64>
}
