func.func @pauli_length(%q0: !quantum.bit, %t: f64) {
  %a = quantum.pauli_rot "XY"(%t) %q0 : !quantum.bit
  return
}
