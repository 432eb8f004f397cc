// Nested: the inner bound depends on the outer induction variable
// (triangular, like the inverse QFT) and is constant only after the outer
// loop is unrolled: 0 + 1 + 2 = 3 gates.
func.func @triangular(%q: !quantum.bit) -> !quantum.bit {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %q) -> (!quantum.bit) {
    %s = scf.for %j = %c0 to %i step %c1 iter_args(%b = %a) -> (!quantum.bit) {
      %g = quantum.custom "H"() %b : !quantum.bit
      scf.yield %g : !quantum.bit
    }
    scf.yield %s : !quantum.bit
  }
  return %r : !quantum.bit
}
