func.func @arg(%q: !quantum.bit, %p: tensor<1xf64>) -> !quantum.bit {
  %o = quantum.gate_table %q params(%p : tensor<1xf64>) kinds ["RZ"] records [0, 0, 0, 1, 0, 0, 0] : !quantum.bit
  return %o : !quantum.bit
}
