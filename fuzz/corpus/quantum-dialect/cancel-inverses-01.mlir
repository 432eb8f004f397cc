// Cancellation cascades: X H H X -> nothing.
func.func @nested(%q: !quantum.bit) -> !quantum.bit {
  %a = quantum.custom "X"() %q : !quantum.bit
  %b = quantum.custom "H"() %a : !quantum.bit
  %c = quantum.custom "H"() %b : !quantum.bit
  %d = quantum.custom "X"() %c : !quantum.bit
  return %d : !quantum.bit
}
