func.func @probs_neither(%q0: !quantum.bit) {
  "quantum.probs"(%q0) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (!quantum.bit) -> ()
  return
}
