//===- Passes.cpp - The pipeline as passes for --pass-pipeline ------------===//
#include "q2/Pipeline/Passes.h"
#include "q2/Pipeline/Pipeline.h"

#include "q2/Support/FileIO.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace q2::pipeline;

namespace {

/// Stage 5, or 5+6, as one module pass (the module is not changed).
struct LLVMStagePass : PassWrapper<LLVMStagePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LLVMStagePass)
  LLVMStagePass(Stage last, PipelineOptions opts, std::string output)
      : last(last), opts(opts), output(std::move(output)) {}
  llvm::StringRef getArgument() const override {
    return last == Stage::LLVMIR ? "q2-emit-llvm-ir" : "q2-emit-object";
  }
  llvm::StringRef getDescription() const override {
    return last == Stage::LLVMIR
               ? "Stage 5: translate to LLVM IR and optimize"
               : "Stages 5 and 6: LLVM IR, then a relocatable object";
  }
  void runOnOperation() override {
    markAllAnalysesPreserved();
    ModuleOp module = getOperation();
    llvm::LLVMContext ctx;
    auto m = translateToLLVMIR(module, ctx, opts);
    if (!m)
      return fail(m.takeError());
    llvm::Error e = llvm::Error::success();
    if (last == Stage::LLVMIR) {
      if (!output.empty())
        e = q2::writeFileAtomically(output, [&](llvm::raw_ostream &os) {
          (*m)->print(os, nullptr);
          return llvm::Error::success();
        });
    } else {
      auto obj = emitObject(**m, opts);
      if (!obj)
        return fail(obj.takeError());
      if (!output.empty())
        e = q2::writeFileAtomically(output,
                                    llvm::StringRef(obj->data(), obj->size()));
    }
    if (e)
      fail(std::move(e));
  }
  void fail(llvm::Error e) {
    getOperation().emitError(llvm::toString(std::move(e)));
    signalPassFailure();
  }
  Stage last;
  PipelineOptions opts;
  std::string output;
};

const char *const kStageArgs[] = {"q2-hlo-lowering",   "q2-quantum-lowering",
                                  "q2-bufferization",  "q2-llvm-dialect",
                                  "q2-llvm-ir",        "q2-object-code"};
} // namespace

// PassPipelineRegistration would add the passes to whatever pass manager
// the pipeline is nested in, and adding a module pass to a func.func pass
// manager is a fatal error (the host aborts); nested where it cannot run,
// the pipeline is a parse error.
void q2::pipeline::registerModulePipeline(
    llvm::StringRef arg, llvm::StringRef description,
    std::function<void(OpPassManager &, const PipelineCLOptions &)> builder) {
  registerPassPipeline(
      arg, description,
      [builder, name = arg.str()](
          OpPassManager &pm, llvm::StringRef optionsStr,
          llvm::function_ref<LogicalResult(const llvm::Twine &)> errorHandler)
          -> LogicalResult {
        std::optional<llvm::StringRef> anchor = pm.getOpName();
        if (anchor && *anchor != ModuleOp::getOperationName())
          return errorHandler("pipeline '" + name +
                              "' runs on 'builtin.module' and cannot be "
                              "nested in '" +
                              *anchor + "'");
        PipelineCLOptions options;
        if (failed(options.parseFromString(optionsStr)))
          return failure();
        builder(pm, options);
        return success();
      },
      [](llvm::function_ref<void(const mlir::detail::PassOptions &)> handler) {
        handler(PipelineCLOptions());
      });
}

void q2::pipeline::registerPipelines() {
  if (PassPipelineInfo::lookup(kStageArgs[0]))
    return;
  for (unsigned i = 1; i <= kNumStages; ++i) {
    Stage s = stageAt(i);
    std::string desc = llvm::formatv("QPE stage {0}: {1}", i, stageName(s));
    registerModulePipeline(
        kStageArgs[i - 1], desc,
        [s](OpPassManager &pm, const PipelineCLOptions &o) {
          if (s == Stage::LLVMIR || s == Stage::ObjectCode)
            pm.addPass(std::make_unique<LLVMStagePass>(s, o.get(), o.output));
          else
            addStagePasses(pm, s, o.get());
        });
  }
}
