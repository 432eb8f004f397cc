//===- Pipeline.h - the six stages of the QPE pipeline ----------*- C++ -*-===//
//
// Each stage is a named pass pipeline (registered for --pass-pipeline as
// q2-hlo-lowering ... q2-object-code, and all six as q2-qpe-pipeline).
// Stages 5 and 6 are passes too, so every stage runs under the same
// PassManager and the same instrumentation: what is profiled is what runs.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_PIPELINE_PIPELINE_H
#define Q2_PIPELINE_PIPELINE_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <memory>
#include <optional>
#include <string>

namespace q2::pipeline {

enum class Stage : unsigned {
  HLOLowering = 1,
  QuantumLowering,
  Bufferization,
  LLVMDialect,
  LLVMIR,
  ObjectCode,
};
inline constexpr unsigned kNumStages = 6;

/// "HLOLowering", ... as used in reports and file names.
llvm::StringRef stageName(Stage s);
/// Accepts the report name (case-insensitive) or the stage number.
std::optional<Stage> parseStage(llvm::StringRef s);
inline Stage stageAt(unsigned i) { return static_cast<Stage>(i); }

struct PipelineOptions {
  /// Keep quantum.pauli_rot for the runtime's native kernel instead of
  /// decomposing it (basis change + CNOT ladder + RZ).
  bool keepNativePauli = false;
  /// Fully unroll loops in QuantumLowering.
  bool unroll = false;
  /// -O level of the LLVM stages (0..3).
  unsigned optLevel = 2;
};

/// What stages 5 and 6 produce. Owned by the driver, shared with the two
/// stage passes it creates.
struct Artifacts {
  std::unique_ptr<llvm::LLVMContext> llvmContext;
  std::unique_ptr<llvm::Module> llvmModule;
  llvm::SmallVector<char, 0> object;
  std::string targetTriple;
};

/// Appends stage `s` to `pm` (a pass manager on builtin.module). Stages 5
/// and 6 write into `artifacts`.
void buildStage(mlir::OpPassManager &pm, Stage s, const PipelineOptions &opts,
                std::shared_ptr<Artifacts> artifacts);

/// The stage-5/6 passes. With an empty `artifacts`, they translate/emit on
/// their own and write `outputPath` (if not empty).
std::unique_ptr<mlir::Pass>
createLLVMIRStagePass(unsigned optLevel, std::shared_ptr<Artifacts> artifacts,
                      std::string outputPath = "");
std::unique_ptr<mlir::Pass>
createObjectCodeStagePass(unsigned optLevel,
                          std::shared_ptr<Artifacts> artifacts,
                          std::string outputPath = "");

/// Registers q2-hlo-lowering ... q2-object-code and q2-qpe-pipeline.
void registerPipelines();

} // namespace q2::pipeline

#endif
