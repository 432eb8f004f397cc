func.func @param_count(%q: !quantum.bit) {
  %a = quantum.custom "RX"() %q : !quantum.bit
  return
}
