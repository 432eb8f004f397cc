func.func @pauli_same_qubit(%q0: !quantum.bit, %t: f64) {
  %a:2 = quantum.pauli_rot "XX"(%t) %q0, %q0 : !quantum.bit, !quantum.bit
  return
}
