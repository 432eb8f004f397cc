func.func @alloc_too_big() {
  %r = quantum.alloc(63) : !quantum.reg
  return
}
