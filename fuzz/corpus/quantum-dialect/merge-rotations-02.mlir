// Controlled rotations merge when the controls match.
func.func @controlled(%q0: !quantum.bit, %q1: !quantum.bit, %c: !quantum.bit, %t: f64) -> (!quantum.bit, !quantum.bit, !quantum.bit) {
  %a:2, %ac = quantum.pauli_rot "XY"(%t) %q0, %q1 ctrls(%c) : !quantum.bit, !quantum.bit ctrls !quantum.bit
  %b:2, %bc = quantum.pauli_rot "XY"(%t) %a#0, %a#1 ctrls(%ac) : !quantum.bit, !quantum.bit ctrls !quantum.bit
  return %b#0, %b#1, %bc : !quantum.bit, !quantum.bit, !quantum.bit
}
