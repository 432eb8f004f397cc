// Controlled adjoint: the controls survive the adjoint lowering.
func.func @ctrl_adj(%q: !quantum.bit, %c: !quantum.bit) -> (!quantum.bit, !quantum.bit) {
  %a, %ac = quantum.custom "S"() %q ctrls(%c) adj : !quantum.bit ctrls !quantum.bit
  return %a, %ac : !quantum.bit, !quantum.bit
}
