// Nested quotes in a q2-profile pipeline (issue 40, item 7) follow MLIR's
// option syntax (docs/compare.md, "Anchoring and quoting"): a value in
// {...} nests to any depth and may hold quotes of both kinds; a value in
// "..." or '...' ends at the next quote of its kind. So a q2-profile inside
// a q2-profile, or a pass option holding a quoted string, is written with
// braces (or the other kind of quote), and each leaves the module the same
// pipeline leaves without profiling.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mlir-opt-22 %s -o %t/plain.mlir --pass-pipeline='builtin.module(canonicalize,cse)'
//
// A q2-profile inside a q2-profile, braces outside, quotes inside.
// RUN: mlir-opt-22 --load-pass-plugin=%q2_plugin %s -o %t/nested.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline={canonicalize,q2-profile{pipeline="cse" table=%t/inner.txt}} table=%t/outer.txt})'
// RUN: diff %t/plain.mlir %t/nested.mlir
// RUN: FileCheck %s --check-prefix=INNER --input-file=%t/inner.txt
// RUN: FileCheck %s --check-prefix=OUTER --input-file=%t/outer.txt
// INNER: q2-profile: 1 pass run in 2 stages
// INNER: cse
// OUTER: q2-profile: 2 pass runs in 3 stages
// OUTER: canonicalize
// OUTER: q2-profile
//
// A quoted string with a space, two levels down: braces at every level.
// RUN: q2-opt %s -o %t/nested2.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline={q2-profile{pipeline={canonicalize, cse} table=%t/i2.txt}} table=%t/o2.txt})'
// RUN: diff %t/plain.mlir %t/nested2.mlir
// RUN: FileCheck %s --check-prefix=I2 --input-file=%t/i2.txt
// I2: q2-profile: 2 pass runs in 3 stages
//
// A pass option holding a quoted string: the other kind of quote outside.
// RUN: mlir-opt-22 %s -o %t/plain3.mlir --pass-pipeline='builtin.module(inline{default-pipeline="canonicalize,cse"})'
// RUN: mlir-opt-22 --load-pass-plugin=%q2_plugin %s -o %t/inline.mlir \
// RUN:   --pass-pipeline="builtin.module(q2-profile{pipeline='inline{default-pipeline=\"canonicalize,cse\"}' table=%t/t3.txt})"
// RUN: diff %t/plain3.mlir %t/inline.mlir
//
// Quotes of one kind do not nest: the inner space ends the outer value.
// MLIR's option parser says so (one line, exit 1, nothing written).
// RUN: not mlir-opt-22 --load-pass-plugin=%q2_plugin %s -o /dev/null \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="cse,q2-profile{pipeline="cse, canonicalize" table=%t/x1.txt}" table=%t/x2.txt})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SAMEQUOTES
// RUN: not test -e %t/x1.txt
// RUN: not test -e %t/x2.txt
// SAMEQUOTES: error: <Pass-Options-Parser>: no such option canonicalize"
// SAMEQUOTES-NOT: Stack dump

func.func private @callee(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %0 = arith.addi %a, %c0 : i32
  return %0 : i32
}
func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = arith.addi %a, %a : i32
  %2 = arith.muli %0, %1 : i32
  %3 = call @callee(%2) : (i32) -> i32
  return %3 : i32
}
