func.func @hh() -> !quantum.bit {
  %r = quantum.alloc(1) : !quantum.reg
  %q = quantum.extract %r[0] : !quantum.reg -> !quantum.bit
  %a = quantum.custom "H"() %q : !quantum.bit
  %b = quantum.custom "H"() %a : !quantum.bit
  return %b : !quantum.bit
}
