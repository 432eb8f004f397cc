func.func @ctrl_result_count(%q: !quantum.bit, %c: !quantum.bit) {
  %a = "quantum.custom"(%q, %c) <{gate_name = "H", operandSegmentSizes = array<i32: 0, 1, 1>, resultSegmentSizes = array<i32: 1, 0>}> : (!quantum.bit, !quantum.bit) -> (!quantum.bit)
  return
}
