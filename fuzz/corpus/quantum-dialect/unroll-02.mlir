// A dynamic trip count (power = repeat with a runtime bound) stays a loop.
func.func @dynamic_trip(%q: !quantum.bit, %n: index) -> !quantum.bit {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %q) -> (!quantum.bit) {
    %b = quantum.custom "X"() %a : !quantum.bit
    scf.yield %b : !quantum.bit
  }
  return %r : !quantum.bit
}
