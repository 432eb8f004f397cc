func.func @zero(%q: !quantum.bit) -> !quantum.bit {
  %c0 = arith.constant 0 : index
  %r = quantum.power %c0 qubits(%q) : !quantum.bit {
  ^bb0(%a: !quantum.bit):
    %b = quantum.custom "H"() %a : !quantum.bit
    quantum.yield %b : !quantum.bit
  }
  return %r : !quantum.bit
}
