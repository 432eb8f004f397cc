func.func @bad_type(%q0: !quantum.bit) {
  %a = quantum.custom "H"() %q0 : !quantum.qubit
  return
}
