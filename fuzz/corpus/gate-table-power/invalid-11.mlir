func.func @gt_gate_param(%q0: !quantum.bit, %q1: !quantum.bit, %p: tensor<1xf64>, %p2: tensor<1x1xf64>) {
  %o = quantum.gate_table %q0 params(%p : tensor<1xf64>) kinds ["H"] records [0, 0, 0, 1, 0, 0, 0] : !quantum.bit
  return
}
