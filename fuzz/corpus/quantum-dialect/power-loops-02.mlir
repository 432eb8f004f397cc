// Nested: the inner loop first, then the loop around the power.
func.func @nested(%q: !quantum.bit, %t: f64) -> !quantum.bit {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %q) -> (!quantum.bit) {
    %s = scf.for %j = %c0 to %c4 step %c1 iter_args(%b = %a) -> (!quantum.bit) {
      %x = quantum.custom "RX"(%t) %b : !quantum.bit
      scf.yield %x : !quantum.bit
    }
    scf.yield %s : !quantum.bit
  }
  return %r : !quantum.bit
}
