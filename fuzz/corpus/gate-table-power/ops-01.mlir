func.func @power(%n: index, %c: !quantum.bit, %q: !quantum.bit, %t: f64) -> (!quantum.bit, !quantum.bit) {
  %r:2 = quantum.power %n qubits(%c, %q) : !quantum.bit, !quantum.bit {
  ^bb0(%a: !quantum.bit, %b: !quantum.bit):
    %o, %oc = quantum.pauli_rot "Z"(%t) %b ctrls(%a) : !quantum.bit ctrls !quantum.bit
    quantum.yield %oc, %o : !quantum.bit, !quantum.bit
  }
  return %r#0, %r#1 : !quantum.bit, !quantum.bit
}

func.func private @chunk(!quantum.bit) -> !quantum.bit
func.func @power_call(%n: index, %q: !quantum.bit) -> !quantum.bit {
  %r = quantum.power %n qubits(%q) : !quantum.bit {
  ^bb0(%a: !quantum.bit):
    %b = func.call @chunk(%a) : (!quantum.bit) -> !quantum.bit
    quantum.yield %b : !quantum.bit
  }
  return %r : !quantum.bit
}
