func.func @same_qubit_twice(%q: !quantum.bit) {
  %a:2 = quantum.custom "CNOT"() %q, %q : !quantum.bit, !quantum.bit
  return
}
