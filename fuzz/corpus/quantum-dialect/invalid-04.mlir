func.func @extract_negative() {
  %r = quantum.alloc(2) : !quantum.reg
  %q = quantum.extract %r[-1] : !quantum.reg -> !quantum.bit
  return
}
