// The pass also runs on a whole module.

func.func @self_inverse(%q: !quantum.bit, %p: !quantum.bit) -> (!quantum.bit, !quantum.bit) {
  %a = quantum.custom "H"() %q : !quantum.bit
  %b = quantum.custom "H"() %a : !quantum.bit
  %c:2 = quantum.custom "CNOT"() %b, %p : !quantum.bit, !quantum.bit
  %d:2 = quantum.custom "CNOT"() %c#0, %c#1 : !quantum.bit, !quantum.bit
  return %d#0, %d#1 : !quantum.bit, !quantum.bit
}
