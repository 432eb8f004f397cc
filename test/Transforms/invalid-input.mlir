// Passes never see invalid quantum IR: the verifier rejects it first, with
// the location, and the pipeline does not run.
// RUN: q2-opt %s --pass-pipeline='builtin.module(quantum-cancel-inverses,quantum-merge-rotations)' --split-input-file --verify-diagnostics

func.func @bad_word(%q: !quantum.bit, %t: f64) -> !quantum.bit {
  // expected-error @+1 {{Pauli word 'Q' has letter 'Q' at position 0}}
  %a = quantum.pauli_rot "Q"(%t) %q : !quantum.bit
  %b = quantum.pauli_rot "Q"(%t) %a adj : !quantum.bit
  return %b : !quantum.bit
}

// -----

func.func @bad_arity(%q: !quantum.bit, %t: f64) -> !quantum.bit {
  %a = quantum.custom "RZ"(%t) %q : !quantum.bit
  // expected-error @+1 {{gate 'RZ' expects 1 parameter(s), got 0}}
  %b = quantum.custom "RZ"() %a : !quantum.bit
  return %b : !quantum.bit
}
