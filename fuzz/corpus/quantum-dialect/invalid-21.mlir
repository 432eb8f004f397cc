func.func @probs_buffer_size(%q0: !quantum.bit, %b: memref<3xf64>) {
  quantum.probs %q0 in(%b : memref<3xf64>)
  return
}
