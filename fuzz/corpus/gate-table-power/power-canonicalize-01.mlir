func.func @one(%q: !quantum.bit) -> !quantum.bit {
  %c1 = arith.constant 1 : index
  %r = quantum.power %c1 qubits(%q) : !quantum.bit {
  ^bb0(%a: !quantum.bit):
    %b = quantum.custom "H"() %a : !quantum.bit
    quantum.yield %b : !quantum.bit
  }
  return %r : !quantum.bit
}
