// Bad input gets one diagnostic with its location and a non-zero exit.
// RUN: not q2-opt %t.does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not q2-opt %S/Inputs/malformed.mlir 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not q2-opt %S/Inputs/invalid-quantum.mlir 2>&1 | FileCheck %s --check-prefix=INVALID
// No partial output file is left behind on failure.
// RUN: rm -f %t.out && not q2-opt %S/Inputs/invalid-quantum.mlir -o %t.out 2>/dev/null && not test -e %t.out
// Exactly one error line and no stack dump. Without driver flags q2-opt is
// mlir-opt, which adds the failing op as a note
// (--mlir-print-op-on-diagnostic=false turns it off, as in mlir-opt).
// RUN: not q2-opt %S/Inputs/invalid-quantum.mlir 2>&1 | grep -c "error:" | FileCheck %s --check-prefix=ONE
// RUN: not q2-opt %S/Inputs/invalid-quantum.mlir 2>&1 | FileCheck %s --check-prefix=NOCRASH
// RUN: not q2-opt %S/Inputs/invalid-quantum.mlir 2>&1 | FileCheck %s --check-prefix=MLIROPT
// RUN: not q2-opt --mlir-print-op-on-diagnostic=false %S/Inputs/invalid-quantum.mlir 2>&1 | FileCheck %s --check-prefix=NONOTE
// The driver prints one line per diagnostic, no note, nothing else.
// RUN: not q2-opt --qpe-pipeline %S/Inputs/invalid-quantum.mlir -o %t.o 2>&1 | FileCheck %s --check-prefix=DRIVER
// RUN: not q2-opt --qpe-pipeline %S/Inputs/invalid-quantum.mlir -o %t.o 2>&1 | count 1
// RUN: not test -e %t.o
// A directory, a FIFO or an over-large file is not read (no blocking read).
// RUN: not q2-opt --qpe-pipeline %S/Inputs -o %t.o 2>&1 | FileCheck %s --check-prefix=DIR
// RUN: rm -f %t.fifo && mkfifo %t.fifo && not q2-opt --qpe-pipeline %t.fifo -o %t.o 2>&1 | FileCheck %s --check-prefix=FIFO

// MISSING: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
// MALFORMED: malformed.mlir:4:4: error: expected operation name in quotes
// INVALID: invalid-quantum.mlir:5:8: error: 'quantum.custom' op gate 'CNOT' expects 2 target qubit(s), got 1
// ONE: {{^}}1{{$}}
// NOCRASH-NOT: Stack dump
// MLIROPT: note: see current operation
// NONOTE-NOT: note: see current operation
// DRIVER: invalid-quantum.mlir:5:8: error: 'quantum.custom' op gate 'CNOT' expects 2 target qubit(s), got 1
// DIR: error: {{.*}}Inputs': is a directory, not a regular file
// FIFO: error: {{.*}}.fifo': is a FIFO, not a regular file
