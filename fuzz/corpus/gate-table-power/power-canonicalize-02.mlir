func.func @many(%q: !quantum.bit, %n: index) -> !quantum.bit {
  %r = quantum.power %n qubits(%q) : !quantum.bit {
  ^bb0(%a: !quantum.bit):
    %b = quantum.custom "H"() %a : !quantum.bit
    quantum.yield %b : !quantum.bit
  }
  return %r : !quantum.bit
}
