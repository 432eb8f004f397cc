// The adjoint counts as a negative angle: a + (-b) + c in some association.
func.func @rz_chain(%q: !quantum.bit, %a: f64, %b: f64, %c: f64) -> !quantum.bit {
  %0 = quantum.custom "RZ"(%a) %q : !quantum.bit
  %1 = quantum.custom "RZ"(%b) %0 adj : !quantum.bit
  %2 = quantum.custom "RZ"(%c) %1 : !quantum.bit
  return %2 : !quantum.bit
}
