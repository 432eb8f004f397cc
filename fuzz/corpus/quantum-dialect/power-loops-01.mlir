// A step other than 1: the count is ceildiv(ub - lb, step).
func.func @stepped(%q: !quantum.bit, %lb: index, %ub: index) -> !quantum.bit {
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %lb to %ub step %c3 iter_args(%a = %q) -> (!quantum.bit) {
    %b = quantum.custom "H"() %a : !quantum.bit
    %c = quantum.custom "S"() %b : !quantum.bit
    %d = quantum.custom "T"() %c : !quantum.bit
    scf.yield %d : !quantum.bit
  }
  return %r : !quantum.bit
}
