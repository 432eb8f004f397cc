func.func @target_is_control(%q: !quantum.bit) {
  %a, %b = quantum.custom "X"() %q ctrls(%q) : !quantum.bit ctrls !quantum.bit
  return
}
