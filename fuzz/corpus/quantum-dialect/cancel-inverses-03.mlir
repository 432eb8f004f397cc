// Negative cases: nothing here is an inverse pair.
func.func @not_inverse(%q: !quantum.bit, %p: !quantum.bit, %t: f64, %u: f64) -> (!quantum.bit, !quantum.bit) {
  // S.S is Z, not the identity.
  %a = quantum.custom "S"() %q : !quantum.bit
  %b = quantum.custom "S"() %a : !quantum.bit
  // Operands swapped: CNOT(a,b) CNOT(b,a) is not the identity.
  %c:2 = quantum.custom "CNOT"() %b, %p : !quantum.bit, !quantum.bit
  %d:2 = quantum.custom "CNOT"() %c#1, %c#0 : !quantum.bit, !quantum.bit
  // The first H has a second user, so it cannot go.
  %e = quantum.custom "H"() %d#0 : !quantum.bit
  %f = quantum.custom "H"() %e : !quantum.bit
  %g, %h = quantum.measure %e : i1, !quantum.bit
  // Different angles.
  %i:2 = quantum.pauli_rot "XX"(%t) %f, %d#1 : !quantum.bit, !quantum.bit
  %j:2 = quantum.pauli_rot "XX"(%u) %i#0, %i#1 adj : !quantum.bit, !quantum.bit
  return %j#0, %j#1 : !quantum.bit, !quantum.bit
}
