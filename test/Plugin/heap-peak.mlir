// Which pass holds the memory: a test pass that allocates 64 MiB and frees
// it before returning shows a heap peak >= 64 MiB above its start while its
// RSS delta does not, in the q2-profile pass
// - in q2-opt (exact always: the executable interposes the allocator, and
//   the test pass comes from a plugin it dlopen()s),
// - in stock mlir-opt-22 with lib/libq2_heap.so preloaded (exact),
// - and without it (mallinfo2 at boundaries, labelled not exact; the same
//   module either way).
// REQUIRES: q2-heap
// RUN: rm -rf %t && mkdir -p %t
// RUN: q2-opt --load-pass-plugin=%q2_test_plugin %s -o %t/q2opt.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="canonicalize,func.func(cse,q2-test-heap-spike{mb=64}),cse" report=%t/q2opt.json trace=%t/q2opt.trace.json})'
// RUN: %python %S/Inputs/heap_check.py %t/q2opt.json --exact \
// RUN:   --spike q2-test-heap-spike=64 --peak-pass q2-test-heap-spike \
// RUN:   --trace %t/q2opt.trace.json | FileCheck %s
//
// RUN: env LD_PRELOAD=%q2_heap_lib mlir-opt-22 --load-pass-plugin=%q2_plugin \
// RUN:   --load-pass-plugin=%q2_test_plugin %s -o %t/preload.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="canonicalize,func.func(cse,q2-test-heap-spike{mb=64}),cse" report=%t/preload.json})'
// RUN: %python %S/Inputs/heap_check.py %t/preload.json --exact \
// RUN:   --spike q2-test-heap-spike=64 --peak-pass q2-test-heap-spike
//
// RUN: mlir-opt-22 --load-pass-plugin=%q2_plugin \
// RUN:   --load-pass-plugin=%q2_test_plugin %s -o %t/plain.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="canonicalize,func.func(cse,q2-test-heap-spike{mb=64}),cse" report=%t/plain.json})'
// RUN: %python %S/Inputs/heap_check.py %t/plain.json --not-exact \
// RUN:   | FileCheck %s --check-prefix=PLAIN
// The views read the real reports: the exact one names the spike as the
// pass that held the most heap; the other says its peak is not exact and
// shows no per-pass heap.
// RUN: q2-profile show %t/preload.json --top 1 --by heap --width 200 | FileCheck %s --check-prefix=SHOW
// RUN: q2-profile show %t/plain.json --top 1 --by heap --width 200 | FileCheck %s --check-prefix=SHOWPLAIN
// RUN: diff %t/q2opt.mlir %t/preload.mlir
// RUN: diff %t/q2opt.mlir %t/plain.mlir
//
// A bad option of the test pass is an error, not a crash.
// RUN: not q2-opt --load-pass-plugin=%q2_test_plugin %s -o /dev/null \
// RUN:   --pass-pipeline='builtin.module(func.func(q2-test-heap-spike{chunks=0}))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD

// CHECK: heap keys: {{[0-9]+}} stages, {{[0-9]+}} passes, exact True
// CHECK: spike (2 runs): heap peak +64.{{[0-9]}} MiB
// CHECK: enclosing records peak at least as high
// CHECK: heap peak in pass q2-test-heap-spike (stage func.func(cse,q2-test-heap-spike))
// CHECK: trace: heap_peak_mb on
// PLAIN: heap keys: {{[0-9]+}} stages, {{[0-9]+}} passes, exact False
// SHOW: memory: {{.*}}heap peak {{[0-9.]+}} MB in q2-test-heap-spike;
// SHOW: top 1 passes by heap peak
// SHOW: q2-test-heap-spike
// SHOWPLAIN: (not exact: mallinfo2 at pass boundaries)
// SHOWPLAIN: no per-pass heap peaks in this report
// BAD: error: q2-test-heap-spike: chunks must be >= 1

func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = arith.addi %a, %a : i32
  %2 = arith.muli %0, %1 : i32
  return %2 : i32
}

func.func @g(%a: f64) -> f64 {
  %0 = arith.mulf %a, %a : f64
  return %0 : f64
}
