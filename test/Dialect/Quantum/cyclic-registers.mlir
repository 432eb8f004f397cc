// Per-op verifiers run before dominance is checked, so a register chain of
// inserts may be a cycle. The index checks walk it once and dominance then
// reports the use (regression: `%r = quantum.insert %r[5], %q` made the
// verifier loop forever; found by q2-fuzz-quantum-dialect).
// RUN: timeout 120 q2-opt %s --split-input-file --verify-diagnostics

func.func @insert_into_itself(%q: !quantum.bit) {
  // expected-error @+2 {{operand #0 does not dominate this use}}
  // expected-note @+1 {{operand defined here}}
  %r = quantum.insert %r[5], %q : !quantum.reg, !quantum.bit
  return
}

// -----

func.func @extract_from_a_cycle(%q: !quantum.bit) {
  // expected-error @+1 {{operand #0 does not dominate this use}}
  %a = quantum.insert %b[0], %q : !quantum.reg, !quantum.bit
  // expected-note @+1 {{operand defined here}}
  %b = quantum.insert %a[0], %q : !quantum.reg, !quantum.bit
  %x = quantum.extract %b[3] : !quantum.reg -> !quantum.bit
  return
}

// -----

func.func @probs_of_a_cycle(%q: !quantum.bit) -> tensor<4xf64> {
  // expected-error @+1 {{operand #0 does not dominate this use}}
  %a = quantum.insert %b[0], %q : !quantum.reg, !quantum.bit
  // expected-note @+1 {{operand defined here}}
  %b = quantum.insert %a[0], %q : !quantum.reg, !quantum.bit
  %p = quantum.probs reg %b[0, 2] : tensor<4xf64>
  return %p : tensor<4xf64>
}
