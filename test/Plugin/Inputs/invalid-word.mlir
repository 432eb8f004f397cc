// Used by dialect-plugin.mlir.
func.func @f(%q0: !quantum.bit, %q1: !quantum.bit, %t: f64) {
  %a:2 = quantum.pauli_rot "XW"(%t) %q0, %q1 : !quantum.bit, !quantum.bit
  return
}
