// Constant angles fold; a zero total removes the rotation.
func.func @cancel_to_zero(%q0: !quantum.bit, %q1: !quantum.bit) -> (!quantum.bit, !quantum.bit) {
  %half = arith.constant 0.5 : f64
  %mhalf = arith.constant -0.5 : f64
  %a:2 = quantum.pauli_rot "YZ"(%half) %q0, %q1 : !quantum.bit, !quantum.bit
  %b:2 = quantum.pauli_rot "YZ"(%mhalf) %a#0, %a#1 : !quantum.bit, !quantum.bit
  %c = quantum.custom "RX"(%half) %b#0 : !quantum.bit
  %d = quantum.custom "RX"(%half) %c : !quantum.bit
  return %d, %b#1 : !quantum.bit, !quantum.bit
}
