// The default limit is 2^20; the stress case must fail loudly, not blow up.
// With the limit at the trip count, the same loop unrolls.
// OK-NOT: scf.for
// OK-COUNT-5: quantum.custom "X"

func.func @too_many(%q: !quantum.bit) -> !quantum.bit {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %r = scf.for %i = %c0 to %c5 step %c1 iter_args(%a = %q) -> (!quantum.bit) {
    %b = quantum.custom "X"() %a : !quantum.bit
    scf.yield %b : !quantum.bit
  }
  return %r : !quantum.bit
}
