//===- Passes.h - The pipeline as passes for --pass-pipeline ----*- C++ -*-===//
//
// Thin pass wrappers over compile() and the stage functions, so that stock
// mlir-opt (through the plugin) and q2-opt's mlir-opt mode can run them:
//   q2-hlo-lowering ... q2-llvm-dialect   stages 1-4 (pass pipelines)
//   q2-llvm-ir{output=F.ll}              stage 5 (translate + optimize)
//   q2-object-code{output=F.o}           stages 5+6
//   q2-qpe-pipeline{output=F.o profile report=R.json ...}  all six
// Every pipeline option of PipelineOptions.def is accepted by each.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_PIPELINE_PASSES_H
#define Q2_PIPELINE_PASSES_H

namespace q2::pipeline {
/// Registers the pipelines above and q2-snapshot (idempotent).
void registerPipelines();
} // namespace q2::pipeline

#endif // Q2_PIPELINE_PASSES_H
