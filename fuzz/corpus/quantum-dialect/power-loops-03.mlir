// Left alone: the body uses the induction variable (the inverse QFT, the
// loop over estimation wires), carries a non-qubit value, measures, or has
// no gate.
func.func @not_powerable(%q: !quantum.bit, %r: !quantum.reg, %n: index) -> (!quantum.bit, f64, !quantum.bit, !quantum.bit) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %a = scf.for %i = %c0 to %n step %c1 iter_args(%x = %q) -> (!quantum.bit) {
    %f = arith.index_cast %i : index to i64
    %g = arith.sitofp %f : i64 to f64
    %y = quantum.custom "RZ"(%g) %x : !quantum.bit
    scf.yield %y : !quantum.bit
  }
  %b:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a, %acc = %z) -> (!quantum.bit, f64) {
    %y = quantum.custom "H"() %x : !quantum.bit
    scf.yield %y, %acc : !quantum.bit, f64
  }
  %c = scf.for %i = %c0 to %n step %c1 iter_args(%x = %b#0) -> (!quantum.bit) {
    %m, %y = quantum.measure %x : i1, !quantum.bit
    scf.yield %y : !quantum.bit
  }
  %d = scf.for %i = %c0 to %n step %c1 iter_args(%x = %c) -> (!quantum.bit) {
    scf.yield %x : !quantum.bit
  }
  return %c, %b#1, %d, %a : !quantum.bit, f64, !quantum.bit, !quantum.bit
}
