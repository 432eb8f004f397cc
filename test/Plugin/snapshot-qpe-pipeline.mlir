// q2-qpe-pipeline{profile=true report=F} in stock mlir-opt-22 on a generated
// H2 program: seven records (Input, then one per stage) whose IR metrics are
// exactly those of the files written by the same tool running the stages
// 1..k in one process, plus the LLVM IR after LLVMIR and the object after
// ObjectCode; the object is still written. (This file's module is not used.)
// RUN: rm -rf %t && mkdir -p %t
// RUN: q2-qpe %examples/hamiltonians/h2_0.7414.FCIDUMP --n-est 3 --n-trotter 2 -o %t/h2.mlir
// RUN: mlir-opt-22 --load-dialect-plugin=%q2_plugin --load-pass-plugin=%q2_plugin %t/h2.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-qpe-pipeline{profile=true report=%t/p.json output=%t/h2.o})' \
// RUN:   -o %t/final.mlir
// RUN: llvm-readelf-22 -h %t/h2.o | FileCheck %s --check-prefix=ELF
// The reference files: stages 1..k in one mlir-opt-22 process.
// RUN: mlir-opt-22 --load-dialect-plugin=%q2_plugin %t/h2.mlir -o %t/s0.mlir
// RUN: mlir-opt-22 --load-dialect-plugin=%q2_plugin --load-pass-plugin=%q2_plugin %t/h2.mlir -o %t/s1.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-hlo-lowering)'
// RUN: mlir-opt-22 --load-dialect-plugin=%q2_plugin --load-pass-plugin=%q2_plugin %t/h2.mlir -o %t/s2.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-hlo-lowering,q2-quantum-lowering)'
// RUN: mlir-opt-22 --load-dialect-plugin=%q2_plugin --load-pass-plugin=%q2_plugin %t/h2.mlir -o %t/s3.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-hlo-lowering,q2-quantum-lowering,q2-bufferization)'
// RUN: mlir-opt-22 --load-dialect-plugin=%q2_plugin --load-pass-plugin=%q2_plugin %t/h2.mlir -o %t/s4.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-hlo-lowering,q2-quantum-lowering,q2-bufferization,q2-llvm-dialect,q2-llvm-ir{output=%t/s5.ll})'
// RUN: cmp %t/s4.mlir %t/final.mlir
// RUN: %python %S/Inputs/snapshot_check.py %t/p.json \
// RUN:   --labels Input,HLOLowering,QuantumLowering,Bufferization,LLVMDialect,LLVMIR,ObjectCode \
// RUN:   --ir-bytes-of %t/s0.mlir %t/s1.mlir %t/s2.mlir %t/s3.mlir %t/s4.mlir %t/s4.mlir %t/s4.mlir \
// RUN:   --llvm-ir %t/s5.ll --object %t/h2.o | FileCheck %s
//
// The same through q2-opt itself, into a fresh report, against q2-opt's own
// reference files (q2-opt and mlir-opt-22 + plugin do not produce identical
// IR from Bufferization on, so each tool is compared with itself).
// RUN: q2-opt %t/h2.mlir -o %t/final2.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-qpe-pipeline{profile=true report=%t/q.json output=%t/h2b.o})'
// RUN: q2-opt %t/h2.mlir -o %t/q1.mlir --pass-pipeline='builtin.module(q2-hlo-lowering)'
// RUN: q2-opt %t/h2.mlir -o %t/q2.mlir --pass-pipeline='builtin.module(q2-hlo-lowering,q2-quantum-lowering)'
// RUN: q2-opt %t/h2.mlir -o %t/q3.mlir --pass-pipeline='builtin.module(q2-hlo-lowering,q2-quantum-lowering,q2-bufferization)'
// RUN: q2-opt %t/h2.mlir -o %t/q4.mlir \
// RUN:   --pass-pipeline='builtin.module(q2-hlo-lowering,q2-quantum-lowering,q2-bufferization,q2-llvm-dialect,q2-llvm-ir{output=%t/q5.ll})'
// RUN: cmp %t/q4.mlir %t/final2.mlir
// RUN: %python %S/Inputs/snapshot_check.py %t/q.json \
// RUN:   --labels Input,HLOLowering,QuantumLowering,Bufferization,LLVMDialect,LLVMIR,ObjectCode \
// RUN:   --ir-bytes-of %t/s0.mlir %t/q1.mlir %t/q2.mlir %t/q3.mlir %t/q4.mlir %t/q4.mlir %t/q4.mlir \
// RUN:   --llvm-ir %t/q5.ll --object %t/h2b.o | FileCheck %s
//
// Profiling does not change what is compiled.
// RUN: q2-opt %t/h2.mlir -o %t/plain.mlir --pass-pipeline='builtin.module(q2-qpe-pipeline{output=%t/plain.o})'
// RUN: cmp %t/plain.mlir %t/final2.mlir
// RUN: cmp %t/plain.o %t/h2b.o
// report= alone turns profiling on; profile=false turns it off.
// RUN: q2-opt %t/h2.mlir -o /dev/null \
// RUN:   --pass-pipeline='builtin.module(q2-qpe-pipeline{report=%t/r.json})'
// RUN: %python %S/Inputs/snapshot_check.py %t/r.json \
// RUN:   --labels Input,HLOLowering,QuantumLowering,Bufferization,LLVMDialect,LLVMIR,ObjectCode
// RUN: q2-opt %t/h2.mlir -o /dev/null \
// RUN:   --pass-pipeline='builtin.module(q2-qpe-pipeline{profile=false report=%t/none.json})'
// RUN: not test -e %t/none.json

// ELF: Type: REL
// CHECK: Input ir=
// CHECK-NEXT: HLOLowering ir=
// CHECK-NEXT: QuantumLowering ir=
// CHECK-NEXT: Bufferization ir=
// CHECK-NEXT: LLVMDialect ir=
// CHECK-NEXT: LLVMIR ir={{.*}} llvm_ir=
// CHECK-NEXT: ObjectCode ir={{.*}} object=
// CHECK-NEXT: OK 7 records
module {
}
