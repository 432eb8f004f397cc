// Gate-inherent controls: CNOT(c, t) -> X(t) ctrls(c), CZ(c, t) -> Z(t)
// ctrls(c); the results are rewired so that #0 is still the control.
func.func @inherent_controls(%c: !quantum.bit, %t: !quantum.bit) -> (!quantum.bit, !quantum.bit) {
  %f:2 = quantum.custom "CNOT"() %c, %t : !quantum.bit, !quantum.bit
  %g:2 = quantum.custom "CZ"() %f#0, %f#1 : !quantum.bit, !quantum.bit
  return %g#0, %g#1 : !quantum.bit, !quantum.bit
}
