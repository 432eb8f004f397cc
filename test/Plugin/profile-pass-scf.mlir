// q2-profile on scf loops with canonicalize/cse nested in func.func and the
// scf-to-cf conversion: same module as the pipeline alone, in mlir-opt-22
// and q2-opt; the nested passes are measured per function.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mlir-opt-22 %s -o %t/plain.mlir \
// RUN:   --pass-pipeline='builtin.module(func.func(canonicalize,cse),convert-scf-to-cf,canonicalize)'
// RUN: mlir-opt-22 --load-pass-plugin=%q2_plugin %s -o %t/profiled.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="func.func(canonicalize,cse),convert-scf-to-cf,canonicalize" report=%t/r.json})'
// RUN: diff %t/plain.mlir %t/profiled.mlir
// RUN: q2-opt %s -o %t/q2opt.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-profile{pipeline="func.func(canonicalize,cse),convert-scf-to-cf,canonicalize" trace=%t/t.json})'
// RUN: diff %t/plain.mlir %t/q2opt.mlir
// RUN: %python %S/Inputs/profile_check.py %t/r.json --final-bytes-of %t/plain.mlir \
// RUN:   --stages 'Input;func.func(canonicalize,cse);convert-scf-to-cf;canonicalize' \
// RUN:   --nested canonicalize=sum,nest --nested cse=sum,nest | FileCheck %s
// RUN: FileCheck %s --check-prefix=OUT --input-file=%t/profiled.mlir
// The pass writes no timeline ("timeline": null); the profile plot still draws.
// RUN: %python %q2_src/tools/q2-opt/plot_profile.py %t/r.json -o %t/r.png | FileCheck %s --check-prefix=PLOT
// PLOT: plot_profile: wrote {{.*}}r.png

// CHECK: pass 1 canonicalize on func.func@sum
// CHECK-NEXT: pass 1 cse on func.func@sum
// CHECK-NEXT: pass 1 canonicalize on func.func@nest
// CHECK-NEXT: pass 1 cse on func.func@nest
// CHECK: OK 4 stages

// OUT-LABEL: func.func @sum
// OUT: cf.cond_br
// OUT-NOT: scf.for

func.func @sum(%lb: index, %ub: index, %a: memref<?xf32>) -> f32 {
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %z2 = arith.constant 0.0 : f32
  %r = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %z) -> f32 {
    %x = memref.load %a[%i] : memref<?xf32>
    %y = memref.load %a[%i] : memref<?xf32>
    %s = arith.addf %x, %y : f32
    %t = arith.addf %acc, %s : f32
    %u = arith.addf %t, %z2 : f32
    scf.yield %u : f32
  }
  return %r : f32
}

func.func @nest(%n: index, %a: memref<?x?xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %true = arith.constant true
      scf.if %true {
        memref.store %v, %a[%i, %j] : memref<?x?xf32>
      }
    }
  }
  return
}
