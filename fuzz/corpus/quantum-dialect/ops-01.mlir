func.func @power(%n: index, %c: !quantum.bit, %q: !quantum.bit, %t: f64) -> (!quantum.bit, !quantum.bit) {
  %r:2 = quantum.power %n qubits(%c, %q) : !quantum.bit, !quantum.bit {
  ^bb0(%a: !quantum.bit, %b: !quantum.bit):
    %o, %oc = quantum.pauli_rot "Z"(%t) %b ctrls(%a) : !quantum.bit ctrls !quantum.bit
    quantum.yield %oc, %o : !quantum.bit, !quantum.bit
  }
  return %r#0, %r#1 : !quantum.bit, !quantum.bit
}
