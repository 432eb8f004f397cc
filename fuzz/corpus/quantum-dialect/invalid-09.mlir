func.func @param_count_extra(%q: !quantum.bit, %t: f64) {
  %a = quantum.custom "H"(%t) %q : !quantum.bit
  return
}
