func.func @probs_range_no_count(%r: !quantum.reg) {
  %p = "quantum.probs"(%r) <{operandSegmentSizes = array<i32: 0, 1, 0>, reg_start = 0 : i64}> : (!quantum.reg) -> tensor<2xf64>
  return
}
