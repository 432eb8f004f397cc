//===- Passes.h - The pipeline as passes for --pass-pipeline ----*- C++ -*-===//
//
// Thin pass wrappers over compile() and the stage functions, so that stock
// mlir-opt (through the plugin) and q2-opt's mlir-opt mode can run them:
//   q2-hlo-lowering ... q2-llvm-dialect   stages 1-4 (pass pipelines)
//   q2-llvm-ir{output=F.ll}              stage 5 (translate + optimize)
//   q2-object-code{output=F.o}           stages 5+6
// Every pipeline option of PipelineOptions.def is accepted by each. All six
// as one compile session, q2-qpe-pipeline, is the session's
// (q2/Session/QPEPipelinePass.h), registered with the same options.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_PIPELINE_PASSES_H
#define Q2_PIPELINE_PASSES_H

#include "q2/Pipeline/Pipeline.h"

#include "mlir/Pass/PassOptions.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace q2::pipeline {

/// The options of every registered pipeline: PipelineOptions.def, plus
/// what the wrappers take (output; q2-qpe-pipeline's profile and report).
struct PipelineCLOptions : mlir::PassPipelineOptions<PipelineCLOptions> {
#define Q2_PIPELINE_OPTION(T, F, N, D, DEF, M, H)                              \
  Option<T> F{*this, N, llvm::cl::desc(H), llvm::cl::init(DEF)};
#include "q2/Pipeline/PipelineOptions.def"
  Option<std::string> output{
      *this, "output",
      llvm::cl::desc("q2-llvm-ir: write the .ll here; q2-object-code and "
                     "q2-qpe-pipeline: write the object here")};
  Option<bool> profile{
      *this, "profile",
      llvm::cl::desc("q2-qpe-pipeline: append a q2-snapshot record before "
                     "the first stage (label Input) and after each stage "
                     "(labelled with the stage name); needs report=. "
                     "Default: on if report= is given")};
  Option<std::string> report{
      *this, "report",
      llvm::cl::desc("q2-qpe-pipeline: JSON report the snapshots are "
                     "appended to (schema q2.snapshots/1)")};

  PipelineOptions get() const {
    PipelineOptions o;
#define Q2_PIPELINE_OPTION(T, F, N, D, DEF, M, H) o.F = F;
#include "q2/Pipeline/PipelineOptions.def"
    return o;
  }
};

/// Registers a pipeline of module passes built by `builder` from its
/// options; nested in a pass manager on another op it is refused.
void registerModulePipeline(
    llvm::StringRef arg, llvm::StringRef description,
    std::function<void(mlir::OpPassManager &, const PipelineCLOptions &)>
        builder);

/// Registers the stage pipelines above (idempotent).
void registerPipelines();

} // namespace q2::pipeline

#endif // Q2_PIPELINE_PASSES_H
