func.func @pauli_lowercase(%q0: !quantum.bit, %t: f64) {
  %a = quantum.pauli_rot "x"(%t) %q0 : !quantum.bit
  return
}
