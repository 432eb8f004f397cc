// RUN: q2-opt %s --pass-pipeline='builtin.module(func.func(quantum-unroll{max-trip-count=4}))' --split-input-file --verify-diagnostics
// The default limit is 2^20; the stress case must fail loudly, not blow up.
// RUN: not q2-opt %s --pass-pipeline='builtin.module(func.func(quantum-unroll{max-trip-count=4}))' --split-input-file -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: quantum-unroll: loop has 5 iterations, above max-trip-count=4
// With the limit at the trip count, the same loop unrolls.
// RUN: q2-opt %s --pass-pipeline='builtin.module(func.func(quantum-unroll{max-trip-count=5}))' --split-input-file | FileCheck %s --check-prefix=OK
// OK-NOT: scf.for
// OK-COUNT-5: quantum.custom "X"

func.func @too_many(%q: !quantum.bit) -> !quantum.bit {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  // expected-error @+1 {{quantum-unroll: loop has 5 iterations, above max-trip-count=4}}
  %r = scf.for %i = %c0 to %c5 step %c1 iter_args(%a = %q) -> (!quantum.bit) {
    %b = quantum.custom "X"() %a : !quantum.bit
    scf.yield %b : !quantum.bit
  }
  return %r : !quantum.bit
}
