func.func @power_yield_count(%n: index, %q: !quantum.bit) {
  %r = quantum.power %n qubits(%q) : !quantum.bit {
  ^bb0(%a: !quantum.bit):
    quantum.yield
  }
  return
}
