func.func @power_measures(%n: index, %q: !quantum.bit) {
  %r = quantum.power %n qubits(%q) : !quantum.bit {
  ^bb0(%a: !quantum.bit):
    %m, %b = quantum.measure %a : i1, !quantum.bit
    quantum.yield %b : !quantum.bit
  }
  return
}
