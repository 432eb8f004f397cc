func.func @extract_no_index(%r: !quantum.reg) {
  %q = "quantum.extract"(%r) : (!quantum.reg) -> !quantum.bit
  return
}
