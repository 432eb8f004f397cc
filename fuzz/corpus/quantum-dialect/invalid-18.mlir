func.func @pauli_empty(%t: f64) {
  "quantum.pauli_rot"(%t) <{pauli_word = "", operandSegmentSizes = array<i32: 1, 0, 0>, resultSegmentSizes = array<i32: 0, 0>}> : (f64) -> ()
  return
}
