func.func @probs_both(%q0: !quantum.bit, %b: memref<2xf64>) {
  %p = "quantum.probs"(%q0, %b) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (!quantum.bit, memref<2xf64>) -> tensor<2xf64>
  return
}
