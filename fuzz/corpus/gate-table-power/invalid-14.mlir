func.func @gt_pauli_word(%q0: !quantum.bit, %q1: !quantum.bit, %p: tensor<1xf64>, %p2: tensor<1x1xf64>) {
  %o:2 = quantum.gate_table %q0, %q1 params(%p : tensor<1xf64>) kinds ["pauli_rot"] words "X" records [0, 0, 0, 2, 0, 0, 0, 1] : !quantum.bit, !quantum.bit
  return
}
