// q2-profile{pipeline=P} leaves the module that --pass-pipeline leaves for
// every anchoring (issue 40, item 4): P runs inside the module, so plain is
// builtin.module(P); a P that is one builtin.module(...) element is that
// --pass-pipeline itself (only this outermost wrapper names the module; any
// builtin.module(...) inside it runs on nested modules, as in MLIR). The
// input has the same redundant arithmetic at the top level and in a nested
// module, so each anchoring leaves a different module.
// RUN: rm -rf %t && mkdir -p %t
//
// Nested modules: cse on the functions of @inner only.
// RUN: mlir-opt-22 %s -o %t/p1.mlir --pass-pipeline='builtin.module(builtin.module(func.func(cse)))'
// RUN: mlir-opt-22 --load-pass-plugin=%q2_plugin %s -o %t/q1.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="builtin.module(builtin.module(func.func(cse)))" report=%t/r1.json})'
// RUN: diff %t/p1.mlir %t/q1.mlir
// RUN: FileCheck %s --check-prefix=INNER --input-file=%t/q1.mlir
// INNER-LABEL: func.func @outer
// INNER-COUNT-2: arith.addi
// INNER-LABEL: module @inner
// INNER: func.func @nested
// INNER-COUNT-1: arith.addi
// INNER-NEXT: arith.muli
// INNER-LABEL: module @deeper
// INNER-COUNT-2: arith.addi
//
// The same without the wrapper: builtin.module(func.func(cse)) inside.
// RUN: mlir-opt-22 --load-pass-plugin=%q2_plugin %s -o %t/q1b.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="builtin.module(func.func(cse))" report=%t/r1b.json})'
// RUN: mlir-opt-22 %s -o %t/p1b.mlir --pass-pipeline='builtin.module(func.func(cse))'
// RUN: diff %t/p1b.mlir %t/q1b.mlir
//
// A wrapper that is not the whole pipeline is an element like any other.
// RUN: mlir-opt-22 %s -o %t/p2.mlir --pass-pipeline='builtin.module(builtin.module(cse),func.func(canonicalize))'
// RUN: mlir-opt-22 --load-pass-plugin=%q2_plugin %s -o %t/q2.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="builtin.module(cse),func.func(canonicalize)" report=%t/r2.json})'
// RUN: diff %t/p2.mlir %t/q2.mlir
//
// any(...) and op-anchored elements.
// RUN: mlir-opt-22 %s -o %t/p3.mlir --pass-pipeline='builtin.module(any(cse),builtin.module(any(canonicalize)))'
// RUN: mlir-opt-22 --load-pass-plugin=%q2_plugin %s -o %t/q3.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="any(cse),builtin.module(any(canonicalize))" report=%t/r3.json})'
// RUN: diff %t/p3.mlir %t/q3.mlir
// RUN: mlir-opt-22 %s -o %t/p4.mlir --pass-pipeline='builtin.module(func.func(cse),builtin.module(builtin.module(cse)))'
// RUN: mlir-opt-22 --load-pass-plugin=%q2_plugin %s -o %t/q4.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="builtin.module(func.func(cse),builtin.module(builtin.module(cse)))" report=%t/r4.json})'
// RUN: diff %t/p4.mlir %t/q4.mlir
//
// In q2-opt too.
// RUN: q2-opt %s -o %t/q5.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="builtin.module(builtin.module(func.func(cse)))" report=%t/r5.json})'
// RUN: diff %t/p1.mlir %t/q5.mlir
//
// The stages are the elements as written (nested ones keep their anchor).
// RUN: %python -c "import json,sys; print([s['name'] for s in json.load(open(sys.argv[1]))['phase_b']['stages']])" %t/r1.json | FileCheck %s --check-prefix=STAGES
// STAGES: ['Input', 'builtin.module(func.func(cse))']

module {
  func.func @outer(%a: i32) -> i32 {
    %0 = arith.addi %a, %a : i32
    %1 = arith.addi %a, %a : i32
    %2 = arith.muli %0, %1 : i32
    return %2 : i32
  }
  module @inner {
    func.func @nested(%a: i32) -> i32 {
      %0 = arith.addi %a, %a : i32
      %1 = arith.addi %a, %a : i32
      %2 = arith.muli %0, %1 : i32
      return %2 : i32
    }
    module @deeper {
      func.func @deepest(%a: i32) -> i32 {
        %c0 = arith.constant 0 : i32
        %0 = arith.addi %a, %c0 : i32
        %1 = arith.addi %a, %c0 : i32
        %2 = arith.muli %0, %1 : i32
        return %2 : i32
      }
    }
  }
}
