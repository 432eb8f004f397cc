// A loop that repeats the same gates (power=repeat QPE): one quantum.power
// with the trip count, the body moved in, the angle math kept inside.
// MIN-LABEL: func.func @repeat
// MIN: scf.for
func.func @repeat(%c: !quantum.bit, %q: !quantum.bit, %t: f64, %n: index) -> (!quantum.bit, !quantum.bit) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %half = arith.constant 0.5 : f64
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c, %b = %q) -> (!quantum.bit, !quantum.bit) {
    %h = arith.mulf %t, %half : f64
    %o, %oc = quantum.pauli_rot "Z"(%h) %b ctrls(%a) : !quantum.bit ctrls !quantum.bit
    scf.yield %oc, %o : !quantum.bit, !quantum.bit
  }
  return %r#0, %r#1 : !quantum.bit, !quantum.bit
}
