// An adjoint rotation is decomposed with the negated angle.
func.func @adjoint(%a: !quantum.bit, %t: f64) -> !quantum.bit {
  %h = quantum.pauli_rot "Z"(%t) %a adj : !quantum.bit
  return %h : !quantum.bit
}
