func.func @power(%n: index, %c: !quantum.bit, %q: !quantum.bit, %t: f64) -> (!quantum.bit, !quantum.bit) {
  %r:2 = quantum.power %n qubits(%c, %q) : !quantum.bit, !quantum.bit {
  ^bb0(%a: !quantum.bit, %b: !quantum.bit):
    %o, %oc = quantum.pauli_rot "Z"(%t) %b ctrls(%a) : !quantum.bit ctrls !quantum.bit
    %in = quantum.power %n qubits(%o) : !quantum.bit {
    ^bb0(%x: !quantum.bit):
      %y = quantum.custom "H"() %x : !quantum.bit
      quantum.yield %y : !quantum.bit
    }
    quantum.yield %oc, %in : !quantum.bit, !quantum.bit
  }
  return %r#0, %r#1 : !quantum.bit, !quantum.bit
}
