// Adjoints disappear: self-inverse gates drop the flag, rotations negate
// their angle, S-dagger/T-dagger become PhaseShift(-pi/2)/PhaseShift(-pi/4).
func.func @adjoints(%q: !quantum.bit, %t: f64) -> !quantum.bit {
  %a = quantum.custom "H"() %q adj : !quantum.bit
  %b = quantum.custom "RZ"(%t) %a adj : !quantum.bit
  %d = quantum.custom "S"() %b adj : !quantum.bit
  %e = quantum.custom "T"() %d adj : !quantum.bit
  %f = quantum.custom "X"() %e adj : !quantum.bit
  return %f : !quantum.bit
}
