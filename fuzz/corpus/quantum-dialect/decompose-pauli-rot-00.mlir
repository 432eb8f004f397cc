// exp(-i t/2 XY) = B^dag L^dag RZ(t) L B: H on the X qubit, RX(pi/2) on the
// Y qubit (RX(-pi/2) Z RX(pi/2) = Y), a CNOT ladder onto the last qubit, RZ there, and everything undone.
// NATIVE-LABEL: func.func @xy
// NATIVE: quantum.pauli_rot "XY"
// NATIVE-NOT: quantum.custom
func.func @xy(%a: !quantum.bit, %b: !quantum.bit, %t: f64) -> (!quantum.bit, !quantum.bit) {
  %h:2 = quantum.pauli_rot "XY"(%t) %a, %b : !quantum.bit, !quantum.bit
  return %h#0, %h#1 : !quantum.bit, !quantum.bit
}
