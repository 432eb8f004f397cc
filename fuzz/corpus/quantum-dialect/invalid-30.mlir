func.func @probs_element_type(%q0: !quantum.bit) {
  %p = quantum.probs %q0 : tensor<2xf32>
  return
}
