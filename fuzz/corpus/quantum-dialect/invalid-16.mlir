func.func @pauli_letter(%q0: !quantum.bit, %q1: !quantum.bit, %t: f64) {
  %a:2 = quantum.pauli_rot "XA"(%t) %q0, %q1 : !quantum.bit, !quantum.bit
  return
}
