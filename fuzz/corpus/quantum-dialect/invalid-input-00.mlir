// Passes never see invalid quantum IR: the verifier rejects it first, with
// the location, and the pipeline does not run.

func.func @bad_word(%q: !quantum.bit, %t: f64) -> !quantum.bit {
  %a = quantum.pauli_rot "Q"(%t) %q : !quantum.bit
  %b = quantum.pauli_rot "Q"(%t) %a adj : !quantum.bit
  return %b : !quantum.bit
}
