// The register form (as q2-qpe writes it) bufferizes the same way.
func.func @probs_reg() -> tensor<8xf64> {
  %r = quantum.alloc(5) : !quantum.reg
  %p = quantum.probs reg %r[2, 3] : tensor<8xf64>
  quantum.dealloc %r : !quantum.reg
  return %p : tensor<8xf64>
}
