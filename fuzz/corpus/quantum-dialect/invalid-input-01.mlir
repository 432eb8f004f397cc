func.func @bad_arity(%q: !quantum.bit, %t: f64) -> !quantum.bit {
  %a = quantum.custom "RZ"(%t) %q : !quantum.bit
  %b = quantum.custom "RZ"() %a : !quantum.bit
  return %b : !quantum.bit
}
