func.func @gates_only(%q0: !quantum.bit) -> !quantum.bit {
  %o = quantum.gate_table %q0 kinds ["H"] records [0, 0, -1, 1, 0, 0, 0,  0, 0, -1, 1, 0, 0, 0] : !quantum.bit
  return %o : !quantum.bit
}
