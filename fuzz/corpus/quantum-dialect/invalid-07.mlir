func.func @unknown_gate(%q: !quantum.bit) {
  %a = quantum.custom "Toffoli3"() %q : !quantum.bit
  return
}
