func.func @empty(%q0: !quantum.bit) -> !quantum.bit {
  %o = quantum.gate_table %q0 kinds [] records [] : !quantum.bit
  return %o : !quantum.bit
}
