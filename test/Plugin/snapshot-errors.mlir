// q2-snapshot refuses bad reports with a pass error (not a crash) and never
// modifies a file that is not its own report.
// RUN: rm -rf %t && mkdir -p %t
// A JSON file that is not a q2.snapshots/1 report is left alone.
// RUN: echo '{"schema": "q2.profile/1", "snapshots": []}' > %t/other.json
// RUN: cp %t/other.json %t/other.orig
// RUN: not mlir-opt-22 --load-dialect-plugin=%q2_plugin --load-pass-plugin=%q2_plugin %s \
// RUN:   --pass-pipeline='builtin.module(q2-snapshot{label=x report=%t/other.json})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOTREPORT --implicit-check-not="current operation"
// RUN: cmp %t/other.json %t/other.orig
// RUN: echo '[1, 2, 3]' > %t/array.json
// RUN: not mlir-opt-22 --load-dialect-plugin=%q2_plugin --load-pass-plugin=%q2_plugin %s \
// RUN:   --pass-pipeline='builtin.module(q2-snapshot{label=x report=%t/array.json})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOTREPORT --implicit-check-not="current operation"
// RUN: echo '[1, 2, 3]' | cmp - %t/array.json
// Not JSON at all.
// RUN: echo 'hello' > %t/text.json
// RUN: not mlir-opt-22 --load-dialect-plugin=%q2_plugin --load-pass-plugin=%q2_plugin %s \
// RUN:   --pass-pipeline='builtin.module(q2-snapshot{label=x report=%t/text.json})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=INVALID
// RUN: echo 'hello' | cmp - %t/text.json
// A report holding a number that overflows a double (regression: an
// uncaught JSON exception aborted mlir-opt) is refused and left alone.
// RUN: echo '{"schema": "q2.snapshots/1", "snapshots": [{"index": 1e400}]}' > %t/huge.json
// RUN: cp %t/huge.json %t/huge.orig
// RUN: not mlir-opt-22 --load-dialect-plugin=%q2_plugin --load-pass-plugin=%q2_plugin %s \
// RUN:   --pass-pipeline='builtin.module(q2-snapshot{label=x report=%t/huge.json})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=HUGE --implicit-check-not="Stack dump"
// RUN: cmp %t/huge.json %t/huge.orig
// Unwritable location.
// RUN: not mlir-opt-22 --load-dialect-plugin=%q2_plugin --load-pass-plugin=%q2_plugin %s \
// RUN:   --pass-pipeline='builtin.module(q2-snapshot{label=x report=%t/no-such-dir/s.json})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NODIR --implicit-check-not="current operation"
// No report option: rejected when the pipeline is parsed.
// RUN: not mlir-opt-22 --load-dialect-plugin=%q2_plugin --load-pass-plugin=%q2_plugin %s \
// RUN:   --pass-pipeline='builtin.module(q2-snapshot{label=x})' 2>&1 | FileCheck %s --check-prefix=NOOPT
// RUN: not q2-opt %s --pass-pipeline='builtin.module(q2-snapshot)' 2>&1 | FileCheck %s --check-prefix=NOOPT0
// ... and by q2-qpe-pipeline{profile=true} without report=, before any stage runs.
// RUN: not q2-opt %s --pass-pipeline='builtin.module(q2-qpe-pipeline{profile=true})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOPIPE

// NOTREPORT: error: q2-snapshot{label=x}: {{.*}}.json: not a q2-snapshot report (an object with "schema": "q2.snapshots/1" and a "snapshots" array); refusing to overwrite it
// INVALID: error: q2-snapshot{label=x}: {{.*}}text.json: invalid JSON
// HUGE: error: q2-snapshot{label=x}: {{.*}}huge.json: invalid JSON
// NODIR: error: q2-snapshot{label=x}: {{.*}}no-such-dir{{.*}}
// NOOPT: q2-snapshot{label=x}: the 'report' option is required
// NOOPT0: q2-snapshot{label=snapshot}: the 'report' option is required
// NOPIPE: error: q2-snapshot{label=Input}: the 'report' option is required
// NOPIPE-NOT: HLOLowering

func.func @f(%q: !quantum.bit) -> !quantum.bit {
  return %q : !quantum.bit
}
