// q2-profile never writes over a file the run reads or writes otherwise
// (issue 40, items 1-3), in stock mlir-opt-22 and in q2-opt: the input, the
// host's -o, and its own other output, compared as files (same inode, or
// the same canonical path for files not created yet: "./", "..", symlinked
// directories), not as spellings. Each is refused before any pass runs, and
// the input is left as it was.
// RUN: rm -rf %t && mkdir -p %t/real %t/sub && ln -s real %t/link
// RUN: cp %s %t/in.mlir && cp %s %t/keep.mlir
//
// 1. report= names the input file.
// RUN: not mlir-opt-22 --load-pass-plugin=%q2_plugin %t/in.mlir -o %t/out.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="cse" report=%t/in.mlir})' 2>&1 | FileCheck %s --check-prefix=INPUT
// RUN: cmp %t/in.mlir %t/keep.mlir
// RUN: not q2-opt %t/in.mlir -o %t/out.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="cse" trace=%t/sub/../in.mlir})' 2>&1 | FileCheck %s --check-prefix=INPUTT
// RUN: cmp %t/in.mlir %t/keep.mlir
// INPUT: error: q2-profile: report '{{.*}}in.mlir' would overwrite the input '{{.*}}in.mlir'
// INPUTT: error: q2-profile: trace '{{.*}}sub/../in.mlir' would overwrite the input '{{.*}}in.mlir'
//
// 2. report= names the host's -o (mlir-opt has it open; q2-opt claims it).
// RUN: not mlir-opt-22 --load-pass-plugin=%q2_plugin %t/in.mlir -o %t/o.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="cse" report=%t/o.mlir})' 2>&1 | FileCheck %s --check-prefix=OUT
// RUN: not q2-opt %t/in.mlir -o %t/o2.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="cse" report=%t/./o2.mlir})' 2>&1 | FileCheck %s --check-prefix=OUTQ
// RUN: not test -e %t/o2.mlir
// OUT: error: q2-profile: report '{{.*}}o.mlir' is open for writing in this process (the host's output file, e.g. mlir-opt's -o)
// OUTQ: error: q2-profile: report '{{.*}}./o2.mlir' is the output file of the host (-o '{{.*}}o2.mlir')
//
// 3. report and trace are one file, however spelled: "./", "d/..", a
// symlinked directory, an existing file through a symlink.
// RUN: not mlir-opt-22 --load-pass-plugin=%q2_plugin %t/in.mlir -o /dev/null \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="cse" report=%t/r.json trace=%t/./r.json})' 2>&1 | FileCheck %s --check-prefix=SAME
// RUN: not mlir-opt-22 --load-pass-plugin=%q2_plugin %t/in.mlir -o /dev/null \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="cse" report=%t/r.json trace=%t/sub/../r.json})' 2>&1 | FileCheck %s --check-prefix=SAME
// RUN: not mlir-opt-22 --load-pass-plugin=%q2_plugin %t/in.mlir -o /dev/null \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="cse" report=%t/real/r.json trace=%t/link/r.json})' 2>&1 | FileCheck %s --check-prefix=SAME
// RUN: not test -e %t/r.json
// RUN: not test -e %t/real/r.json
// RUN: echo '{}' > %t/real/old.json
// RUN: not q2-opt %t/in.mlir -o /dev/null \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="cse" report=%t/real/old.json trace=%t/link/old.json})' 2>&1 | FileCheck %s --check-prefix=SAME
// RUN: FileCheck %s --check-prefix=OLD --input-file=%t/real/old.json
// SAME: error: q2-profile: report and trace name the same file
// OLD: {}
//
// Distinct files are fine, and -o /dev/null with report= too.
// RUN: mlir-opt-22 --load-pass-plugin=%q2_plugin %t/in.mlir -o /dev/null \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="cse" report=%t/real/r.json trace=%t/link/t.json})'
// RUN: test -s %t/real/r.json && test -s %t/real/t.json

module {
  func.func @f(%a: i32) -> i32 {
    %0 = arith.addi %a, %a : i32
    %1 = arith.addi %a, %a : i32
    %2 = arith.muli %0, %1 : i32
    return %2 : i32
  }
}
