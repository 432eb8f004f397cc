// q2-profile runs the pipeline's passes as parsed, with the state pipeline
// builders give them: MLIR's sparsifier{...} passes its options to its
// passes' constructors, which an element's printed form does not carry.
// Printing each element and parsing it again (as q2-profile did) ran
// sparsifier with its options lost: a different module, for `sparsifier`
// itself as for sparsifier{enable-runtime-library=true}. Each must leave
// exactly the module the plain pipeline leaves.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mlir-opt-22 %S/../HTML/Inputs/sparse-kernels.mlir -o %t/p1.mlir --pass-pipeline='builtin.module(sparsifier)'
// RUN: mlir-opt-22 --load-pass-plugin=%q2_plugin %S/../HTML/Inputs/sparse-kernels.mlir -o %t/q1.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="sparsifier" report=%t/r1.json})'
// RUN: diff %t/p1.mlir %t/q1.mlir
// RUN: mlir-opt-22 %S/../HTML/Inputs/sparse-kernels.mlir -o %t/p2.mlir --pass-pipeline='builtin.module(sparsifier{enable-runtime-library=true vl=2})'
// RUN: mlir-opt-22 --load-pass-plugin=%q2_plugin %S/../HTML/Inputs/sparse-kernels.mlir -o %t/q2.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="sparsifier{enable-runtime-library=true vl=2}" report=%t/r2.json})'
// RUN: diff %t/p2.mlir %t/q2.mlir
// The stages are the top-level passes as MLIR runs them (adjacent
// func.func(...) elements merged, as in the plain pipeline).
// RUN: %python -c "import json,sys; s=[x['name'] for x in json.load(open(sys.argv[1]))['phase_b']['stages']]; print(len(s), s[0], s[2], s[-1])" %t/r1.json | FileCheck %s
// CHECK: 14 Input sparsification-and-bufferization reconcile-unrealized-casts
