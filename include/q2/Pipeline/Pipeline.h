//===- Pipeline.h - The six stages of the QPE pipeline ----------*- C++ -*-===//
//
// Stages 1-4 are MLIR pass pipelines (the same text a user can give to
// --pass-pipeline, see docs/pipeline.md); stage 5 (translate to LLVM IR and
// optimize) and stage 6 (emit an object) are plain functions returning their
// product. compile() runs any range of stages; it is the one stage loop, used
// by the q2-opt driver, the JIT tests and the q2-qpe-pipeline pass.
// Callers watch and steer it through CompileHooks (profiling, IR dumps,
// pass-manager options) instead of side channels.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_PIPELINE_PIPELINE_H
#define Q2_PIPELINE_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <variant>

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
inline unsigned stageIndex(Stage s) { return static_cast<unsigned>(s); }
/// The --ir-dir file of stage i (0 = the input): 0_Input.mlir,
/// 1_HLOLowering.mlir, ..., 5_LLVMIR.ll, 6_ObjectCode.o.
std::string stageFileName(unsigned i);

/// The pipeline's options; the list is PipelineOptions.def.
struct PipelineOptions {
#define Q2_PIPELINE_OPTION(T, F, N, D, DEF, M, H) T F = DEF;
#include "q2/Pipeline/PipelineOptions.def"

  /// Refuses values out of range (e.g. -O4), naming the option.
  llvm::Error validate() const;
  /// Every option as (pass-option name, value), in declaration order.
  using Value = std::variant<bool, int64_t, double, std::string>;
  void forEach(llvm::function_ref<void(llvm::StringRef, Value)> fn) const;
  /// "keep-native-pauli=false unroll=false opt-level=2": all options, for
  /// cache keys and messages.
  std::string str() const;
};

//===----------------------------------------------------------------------===//
// Stages
//===----------------------------------------------------------------------===//

/// Appends the passes of MLIR stage `s` (1-4) to `pm` (on builtin.module).
void addStagePasses(mlir::OpPassManager &pm, Stage s,
                    const PipelineOptions &opts);

/// A non-MLIR step of stages 5 and 6 begins or ends; at the end, what it
/// produced (the LLVM module, or the object).
struct StepEvent {
  llvm::StringRef name; ///< "llvm-translate", "llvm-optimize", "llvm-codegen"
  bool begin = true;
  const llvm::Module *module = nullptr;
  llvm::ArrayRef<char> object;
};
using StepCallback = llvm::function_ref<void(const StepEvent &)>;

/// Stage 5: translates `module` (LLVM dialect only) into `ctx` and optimizes
/// it at -O<optLevel>, as two steps (`onStep` is optional).
llvm::Expected<std::unique_ptr<llvm::Module>>
translateToLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &ctx,
                  const PipelineOptions &opts, StepCallback onStep = nullptr);

/// Stage 6: a relocatable ELF object for the host ("llvm-codegen" step).
/// Code generation rewrites `module` in place.
llvm::Expected<llvm::SmallVector<char, 0>>
emitObject(llvm::Module &module, const PipelineOptions &opts,
           StepCallback onStep = nullptr);

//===----------------------------------------------------------------------===//
// The stage loop
//===----------------------------------------------------------------------===//

/// What a stage produced, handed to CompileHooks::afterStage.
struct StageOutput {
  Stage stage;
  mlir::ModuleOp module;                  ///< the MLIR module (all stages)
  const llvm::Module *llvmModule = nullptr; ///< stage 5 (null otherwise)
  llvm::ArrayRef<char> object;            ///< stage 6
};

/// How compile() runs and reports stages. The defaults run MLIR stages on a
/// fresh PassManager and observe nothing.
class CompileHooks {
public:
  virtual ~CompileHooks();
  /// Runs an MLIR stage: `addPasses` fills a pass manager. The default
  /// builds a PassManager on the module's context, lets configure() set it
  /// up, and runs it. A pass that runs the pipeline as a nested pipeline
  /// overrides this (OpPassManager + Pass::runPipeline).
  virtual mlir::LogicalResult
  runStage(Stage s, mlir::ModuleOp module,
           llvm::function_ref<void(mlir::OpPassManager &)> addPasses);
  /// Sets up the PassManager of an MLIR stage (instrumentation, MLIR's
  /// pass-manager options) before its passes are added.
  virtual void configure(Stage s, mlir::PassManager &pm) {}
  virtual void beforeStage(Stage s) {}
  /// After a successful stage; an error stops the compilation.
  virtual llvm::Error afterStage(const StageOutput &out) {
    return llvm::Error::success();
  }
  /// A non-MLIR step of stages 5/6 begins or ends.
  virtual void step(const StepEvent &event) {}
};

struct CompileResult {
  Stage last = Stage::ObjectCode;
  std::unique_ptr<llvm::LLVMContext> llvmContext; ///< owns llvmModule
  std::unique_ptr<llvm::Module> llvmModule;       ///< after stage 5
  llvm::SmallVector<char, 0> object;              ///< after stage 6
};

/// Runs stages 1..`last` on `module` (lowered in place). A failing MLIR
/// stage has reported its diagnostics through the context; the error says
/// which stage failed.
llvm::Expected<CompileResult> compile(mlir::ModuleOp module,
                                      const PipelineOptions &opts,
                                      Stage last = Stage::ObjectCode,
                                      CompileHooks *hooks = nullptr);

/// compile() to an object with the diagnostics collected into the error
/// (for tests and embedders without a diagnostic handler of their own).
llvm::Expected<llvm::SmallVector<char, 0>>
compileToObject(mlir::ModuleOp module, const PipelineOptions &opts);

} // namespace q2::pipeline

#endif // Q2_PIPELINE_PIPELINE_H
