func.func @extract_both_index_forms(%r: !quantum.reg, %i: i64) {
  %q = "quantum.extract"(%r, %i) <{idx_attr = 0 : i64}> : (!quantum.reg, i64) -> !quantum.bit
  return
}
