// A constant 3-trip loop carrying a qubit becomes three gates in a row.
func.func @constant_trip(%q: !quantum.bit, %t: f64) -> !quantum.bit {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %q) -> (!quantum.bit) {
    %b = quantum.custom "RX"(%t) %a : !quantum.bit
    scf.yield %b : !quantum.bit
  }
  return %r : !quantum.bit
}
