// An all-identity word is a global phase: dropped without controls,
// PhaseShift(-t/2) on the control when controlled (QPE's constant term).
func.func @identity_controlled(%a: !quantum.bit, %k: !quantum.bit, %t: f64) -> (!quantum.bit, !quantum.bit) {
  %h, %hc = quantum.pauli_rot "I"(%t) %a ctrls(%k) : !quantum.bit ctrls !quantum.bit
  return %h, %hc : !quantum.bit, !quantum.bit
}

func.func @identity_uncontrolled(%a: !quantum.bit, %b: !quantum.bit, %t: f64) -> (!quantum.bit, !quantum.bit) {
  %h:2 = quantum.pauli_rot "II"(%t) %a, %b : !quantum.bit, !quantum.bit
  return %h#0, %h#1 : !quantum.bit, !quantum.bit
}
