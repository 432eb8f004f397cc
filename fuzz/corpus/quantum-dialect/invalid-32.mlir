// Regression: start + count overflowed int64 and passed the range check.
func.func @probs_range_overflow() -> tensor<4xf64> {
  %r = quantum.alloc(2) : !quantum.reg
  %p = quantum.probs reg %r[9223372036854775807, 2] : tensor<4xf64>
  return %p : tensor<4xf64>
}
