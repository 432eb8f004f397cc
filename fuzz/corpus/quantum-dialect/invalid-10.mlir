func.func @target_count(%q: !quantum.bit) {
  %a = quantum.custom "CNOT"() %q : !quantum.bit
  return
}
