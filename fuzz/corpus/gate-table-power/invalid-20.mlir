func.func @power_args(%n: index, %q: !quantum.bit) {
  %r = quantum.power %n qubits(%q) : !quantum.bit {
    quantum.yield %q : !quantum.bit
  }
  return
}
