// pauli_rot adjoint negates the angle and keeps word, targets and controls.
func.func @pauli_adj(%a: !quantum.bit, %b: !quantum.bit, %c: !quantum.bit, %t: f64) -> (!quantum.bit, !quantum.bit, !quantum.bit) {
  %h:2, %hc = quantum.pauli_rot "XY"(%t) %a, %b ctrls(%c) adj : !quantum.bit, !quantum.bit ctrls !quantum.bit
  return %h#0, %h#1, %hc : !quantum.bit, !quantum.bit, !quantum.bit
}
