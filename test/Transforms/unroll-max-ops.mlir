// RUN: q2-opt %s --pass-pipeline='builtin.module(func.func(quantum-unroll{max-ops=50}))' --verify-diagnostics

// The size after unrolling is checked before each loop is unrolled (the
// inner loop, 8 x 3 ops, fits; then the outer one, 8 x 28 ops, would not).
// Regression: unrolled programs were built until memory ran out (q2-opt --unroll).
func.func @nested(%q: !quantum.bit) -> !quantum.bit {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{quantum-unroll: unrolling this loop (8 iterations of}}
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%a = %q) -> (!quantum.bit) {
    %s = scf.for %j = %c0 to %c8 step %c1 iter_args(%b = %a) -> (!quantum.bit) {
      %h = quantum.custom "H"() %b : !quantum.bit
      scf.yield %h : !quantum.bit
    }
    scf.yield %s : !quantum.bit
  }
  return %r : !quantum.bit
}
