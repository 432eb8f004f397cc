// The q2-profile pass prints a pass tree like --mlir-timing's (issue 36):
// to stderr when neither report nor trace is given, to table=FILE, or with
// table=- next to a report. Nesting as MLIR nests the passes: a func.func
// element's passes under it, once each with "x2" for the two functions.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mlir-opt-22 --load-pass-plugin=%q2_plugin %S/Inputs/matmul-tensor.mlir -o %t/out.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="canonicalize,func.func(convert-linalg-to-loops,cse),convert-scf-to-cf"})' 2> %t/stderr.txt
// RUN: FileCheck %s --input-file=%t/stderr.txt
// CHECK:      q2-profile: 6 pass runs in 4 stages, {{[0-9.]+}} s wall (profiler {{[0-9.]+}} s)
// CHECK-SAME: {{;|$}}
// CHECK:      peak RSS {{[0-9.]+}} MB in {{.*}}
// CHECK-NEXT:    Wall   Wall    CPU    RSS   Heap   Heap     IR     IR
// CHECK-NEXT:      ms      %     ms     MB     MB  pk MB     kB  lines  Name
// CHECK-NEXT: {{ +[0-9.]+ +[0-9.]+% +[0-9.]+ +[0-9.]+ +[0-9.—]+ +[—0-9.]+ +[0-9.]+ +[0-9]+}}  Input
// CHECK-NEXT: {{.*}}%{{.*}}  canonicalize
// CHECK-NEXT: {{.*}}%{{.*}}  func.func(convert-linalg-to-loops,cse)
// CHECK-NEXT: {{.*}}%{{.*}}    convert-linalg-to-loops x2
// CHECK-NEXT: {{.*}}%{{.*}}    cse x2
// CHECK-NEXT: {{.*}}%{{.*}}  convert-scf-to-cf
// CHECK-NOT: {{.}}
//
// The same module as without profiling.
// RUN: mlir-opt-22 %S/Inputs/matmul-tensor.mlir -o %t/plain.mlir \
// RUN:   --pass-pipeline='builtin.module(canonicalize,func.func(convert-linalg-to-loops,cse),convert-scf-to-cf)'
// RUN: diff %t/plain.mlir %t/out.mlir
//
// table=FILE, and a report: nothing on stderr; the table in the file.
// RUN: mlir-opt-22 --load-pass-plugin=%q2_plugin %S/Inputs/matmul-tensor.mlir -o /dev/null \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="canonicalize,func.func(convert-linalg-to-loops,cse),convert-scf-to-cf" report=%t/r.json table=%t/t.txt})' 2> %t/quiet.txt
// RUN: count 0 < %t/quiet.txt
// RUN: FileCheck %s --input-file=%t/t.txt
// With a report and table=-: both.
// RUN: q2-opt %S/Inputs/matmul-tensor.mlir -o /dev/null \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="canonicalize,func.func(convert-linalg-to-loops,cse),convert-scf-to-cf" report=%t/r2.json table=-})' 2>&1 \
// RUN:   | FileCheck %s
// RUN: test -s %t/r2.json
//
// q2-profile show prints the same tree from the report, after the header.
// RUN: q2-profile show %t/r.json | FileCheck %s --check-prefix=SHOW
// SHOW: Profile of {{.*}}matmul-tensor.mlir by q2-profile
// SHOW: pipeline: canonicalize,func.func(convert-linalg-to-loops,cse),convert-scf-to-cf
// SHOW: Wall s
// SHOW: ms      %     ms     MB     MB  pk MB     kB  lines  Name
// SHOW:   func.func(convert-linalg-to-loops,cse)
// SHOW-NEXT: convert-linalg-to-loops x2
