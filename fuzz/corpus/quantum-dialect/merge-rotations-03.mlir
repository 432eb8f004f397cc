// Negative cases: different gates, words, targets or controls do not merge.
func.func @no_merge(%q0: !quantum.bit, %q1: !quantum.bit, %c: !quantum.bit, %t: f64) -> (!quantum.bit, !quantum.bit, !quantum.bit) {
  %a = quantum.custom "RX"(%t) %q0 : !quantum.bit
  %b = quantum.custom "RY"(%t) %a : !quantum.bit
  %d:2 = quantum.pauli_rot "XY"(%t) %b, %q1 : !quantum.bit, !quantum.bit
  %e:2 = quantum.pauli_rot "YX"(%t) %d#0, %d#1 : !quantum.bit, !quantum.bit
  %f = quantum.custom "RZ"(%t) %e#0 : !quantum.bit
  %g, %gc = quantum.custom "RZ"(%t) %f ctrls(%c) : !quantum.bit ctrls !quantum.bit
  return %g, %gc, %e#1 : !quantum.bit, !quantum.bit, !quantum.bit
}
