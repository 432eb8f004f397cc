func.func @table(%q0: !quantum.bit, %q1: !quantum.bit, %q2: !quantum.bit, %p: memref<1xf64>) -> (!quantum.bit, !quantum.bit, !quantum.bit) {
  %o:3 = quantum.gate_table %q0, %q1, %q2 params(%p : memref<1xf64>) kinds ["H", "X", "pauli_rot"] words "XZ"
           records [0, 0, -1, 1, 0, 0, 0,  1, 0, -1, 1, 1, 0, 1, 0,  2, 0, 0, 2, 1, 0, 1, 2, 0]
           : !quantum.bit, !quantum.bit, !quantum.bit
  return %o#0, %o#1, %o#2 : !quantum.bit, !quantum.bit, !quantum.bit
}
