func.func @extract_out_of_range() {
  %r = quantum.alloc(2) : !quantum.reg
  %q = quantum.extract %r[2] : !quantum.reg -> !quantum.bit
  return
}
