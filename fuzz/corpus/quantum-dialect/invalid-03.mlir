func.func @insert_out_of_range(%q: !quantum.bit) {
  %r = quantum.alloc(2) : !quantum.reg
  %r1 = quantum.insert %r[5], %q : !quantum.reg, !quantum.bit
  return
}
