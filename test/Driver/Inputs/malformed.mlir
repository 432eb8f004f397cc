// Used by bad-input.mlir: not even MLIR syntax.
func.func @f() {
  %r = quantum.alloc(2) : !quantum.reg
  }}} this is not mlir
}
