// q2-profile refuses bad options when the pipeline is parsed (one line, no
// pass has run, nothing written), and a failing inner pass fails q2-profile
// with the pass's own diagnostic, a report naming the stage, and no crash.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not mlir-opt-22 --load-pass-plugin=%q2_plugin %s -o /dev/null \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="canonicalize,no-such-pass" report=%t/r.json})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNKNOWN
// RUN: not mlir-opt-22 --load-pass-plugin=%q2_plugin %s -o /dev/null \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="func.func(cse" report=%t/r.json})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PAREN
// RUN: not mlir-opt-22 --load-pass-plugin=%q2_plugin %s -o /dev/null \
// RUN:   --pass-pipeline='builtin.module(q2-profile{report=%t/r.json})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOPIPE
// RUN: not mlir-opt-22 --load-pass-plugin=%q2_plugin %s -o /dev/null \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="cse" table=%t/no-such-dir/t.txt})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOTABLE
// RUN: not mlir-opt-22 --load-pass-plugin=%q2_plugin %s -o /dev/null \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="cse" report=%t/no-such-dir/r.json})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NODIR
// RUN: not mlir-opt-22 --load-pass-plugin=%q2_plugin %s -o /dev/null \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="func.func(cse)" report=%t/same.json trace=%t/same.json})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SAME
// RUN: not test -e %t/r.json
// RUN: not test -e %t/same.json
//
// A pass of the pipeline fails: its diagnostic and q2-profile's are the
// only ones; the report is still written and names the stage.
// RUN: mlir-opt-22 --load-pass-plugin=%q2_plugin %s --allow-unregistered-dialect --verify-diagnostics -o /dev/null \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="cse,one-shot-bufferize" report=%t/fail.json})'
// RUN: FileCheck %s --check-prefix=REPORT --input-file=%t/fail.json

// UNKNOWN: error: q2-profile: invalid pipeline "canonicalize,no-such-pass" at column 14: 'no-such-pass' does not refer to a registered pass or pass pipeline
// UNKNOWN-NOT: Stack dump
// PAREN: error: q2-profile: invalid pipeline "func.func(cse" at column 11: encountered unbalanced parentheses
// NOPIPE: error: q2-profile: the 'pipeline' option is required
// NOTABLE: error: q2-profile: table '{{.*}}no-such-dir/t.txt' cannot be written
// NODIR: error: q2-profile: report '{{.*}}no-such-dir/r.json' cannot be written
// SAME: error: q2-profile: report and trace name the same file

// REPORT: "error": "q2-profile: 'one-shot-bufferize' failed"

// expected-error@+1 {{q2-profile: 'one-shot-bufferize' failed}}
module {
  func.func @f(%t: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error@+1 {{op was not bufferized}}
    %0 = "test.unknown"(%t) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
