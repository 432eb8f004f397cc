// A zero-trip loop disappears; its result is the init value.
func.func @zero_trip(%q: !quantum.bit) -> !quantum.bit {
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %r = scf.for %i = %c5 to %c1 step %c1 iter_args(%a = %q) -> (!quantum.bit) {
    %b = quantum.custom "X"() %a : !quantum.bit
    scf.yield %b : !quantum.bit
  }
  return %r : !quantum.bit
}
