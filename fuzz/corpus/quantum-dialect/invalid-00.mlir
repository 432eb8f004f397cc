// Every verifier rule of the quantum dialect.

func.func @alloc_zero() {
  %r = quantum.alloc(0) : !quantum.reg
  return
}
