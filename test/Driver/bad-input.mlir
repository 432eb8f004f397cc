// Bad input gets one diagnostic with its location and a non-zero exit.
// RUN: not q2-opt %t.does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not q2-opt %S/Inputs/malformed.mlir 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not q2-opt %S/Inputs/invalid-quantum.mlir 2>&1 | FileCheck %s --check-prefix=INVALID
// No partial output file is left behind on failure.
// RUN: rm -f %t.out && not q2-opt %S/Inputs/invalid-quantum.mlir -o %t.out 2>/dev/null && not test -e %t.out
// Exactly one error line, no note with the generic op form, no stack dump.
// RUN: not q2-opt %S/Inputs/invalid-quantum.mlir 2>&1 | grep -c "error:" | FileCheck %s --check-prefix=ONE
// RUN: not q2-opt %S/Inputs/invalid-quantum.mlir 2>&1 | FileCheck %s --check-prefix=NOCRASH

// MISSING: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
// MALFORMED: malformed.mlir:4:4: error: expected operation name in quotes
// INVALID: invalid-quantum.mlir:5:8: error: 'quantum.custom' op gate 'CNOT' expects 2 target qubit(s), got 1
// ONE: {{^}}1{{$}}
// NOCRASH-NOT: Stack dump
// NOCRASH-NOT: note: see current operation
