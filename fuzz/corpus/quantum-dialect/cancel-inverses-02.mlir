// G followed by G-dagger, with the same controls and parameter.
func.func @adjoint_pair(%q: !quantum.bit, %c: !quantum.bit, %t: f64) -> (!quantum.bit, !quantum.bit) {
  %a, %ac = quantum.custom "S"() %q ctrls(%c) : !quantum.bit ctrls !quantum.bit
  %b, %bc = quantum.custom "S"() %a ctrls(%ac) adj : !quantum.bit ctrls !quantum.bit
  %d:2 = quantum.pauli_rot "XZ"(%t) %b, %bc : !quantum.bit, !quantum.bit
  %e:2 = quantum.pauli_rot "XZ"(%t) %d#0, %d#1 adj : !quantum.bit, !quantum.bit
  return %e#0, %e#1 : !quantum.bit, !quantum.bit
}
