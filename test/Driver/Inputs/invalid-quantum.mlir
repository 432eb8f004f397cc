// Used by bad-input.mlir: parses, but fails the quantum verifier.
func.func @f() {
  %r = quantum.alloc(2) : !quantum.reg
  %q = quantum.extract %r[0] : !quantum.reg -> !quantum.bit
  %a = quantum.custom "CNOT"() %q : !quantum.bit
  return
}
