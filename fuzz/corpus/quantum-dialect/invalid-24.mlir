func.func @probs_no_qubits() {
  %p = "quantum.probs"() <{operandSegmentSizes = array<i32: 0, 0, 0>}> : () -> tensor<1xf64>
  return
}
