func.func @insert_out_of_range(%q: !quantum.bit) {
  %r = quantum.insert %r[5], %q : !quantum.reg, !quantum.bit
  return
}
