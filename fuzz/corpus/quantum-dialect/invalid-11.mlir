func.func @result_count(%q: !quantum.bit) {
  %a:2 = "quantum.custom"(%q) <{gate_name = "H", operandSegmentSizes = array<i32: 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0>}> : (!quantum.bit) -> (!quantum.bit, !quantum.bit)
  return
}
