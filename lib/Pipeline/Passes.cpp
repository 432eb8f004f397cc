//===- Passes.cpp - The pipeline as passes for --pass-pipeline ------------===//
#include "q2/Pipeline/Passes.h"
#include "q2/Pipeline/Pipeline.h"

#include "q2/Profiling/MLIR/ProfilePass.h"
#include "q2/Profiling/MLIR/SnapshotPass.h"
#include "q2/Session/CompileSession.h"
#include "q2/Support/FileIO.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace q2::pipeline;
namespace prof = q2::profiling;

namespace {

/// The options of every registered pipeline: PipelineOptions.def, plus
/// what the wrappers themselves take.
struct PipelineCLOptions : PassPipelineOptions<PipelineCLOptions> {
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

/// All six stages through the compile session (hosted on this module):
/// stages 1-4 run as dynamic pipelines of this pass, 5-6 as functions; with
/// a report, a q2-snapshot record brackets every stage.
struct QPEPipelinePass
    : PassWrapper<QPEPipelinePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(QPEPipelinePass)
  QPEPipelinePass(PipelineOptions opts, std::string output, bool profile,
                  std::string report)
      : opts(opts), output(std::move(output)), profile(profile),
        report(std::move(report)) {}
  llvm::StringRef getArgument() const override { return "q2-compile-qpe"; }
  llvm::StringRef getDescription() const override {
    return "All six QPE stages, stage 0 MLIR to an object file";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    // The stages run as dynamic pipelines: their dialects load up front.
    for (unsigned i = 1; i <= 4; ++i) {
      OpPassManager pm(ModuleOp::getOperationName());
      addStagePasses(pm, stageAt(i), opts);
      pm.getDependentDialects(registry);
    }
  }
  LogicalResult initialize(MLIRContext *ctx) override {
    if (profile && report.empty())
      return emitError(UnknownLoc::get(ctx))
             << "q2-snapshot{label=Input}: the 'report' option is required: "
                "q2-qpe-pipeline{profile=true} appends its snapshots to "
                "report=<file.json>";
    return success();
  }

  void runOnOperation() override {
    // The compile session, hosted on this pass's module: the stages run as
    // dynamic pipelines of this pass (so the host's instrumentation sees
    // every pass), with the session's hooks, snapshots and output.
    q2::session::SessionOptions so;
    so.pipeline = opts;
    so.last = Stage::ObjectCode;
    q2::session::HostedCompile hosting;
    hosting.runNested = [this](OpPassManager &pm, ModuleOp m) {
      return runPipeline(pm, m);
    };
    if (profile)
      hosting.snapshotReport = report;
    hosting.output = output;
    auto result = q2::session::CompileSession::compileHosted(
        getOperation(), so, std::move(hosting));
    if (!result)
      return fail(result.takeError());
  }
  void fail(llvm::Error e) {
    emitError(getOperation().getLoc()) << llvm::toString(std::move(e));
    signalPassFailure();
  }

  PipelineOptions opts;
  std::string output;
  bool profile;
  std::string report;
};

const char *const kStageArgs[] = {"q2-hlo-lowering",   "q2-quantum-lowering",
                                  "q2-bufferization",  "q2-llvm-dialect",
                                  "q2-llvm-ir",        "q2-object-code"};
} // namespace

/// Registers a pipeline of module passes. PassPipelineRegistration would
/// add them to whatever pass manager the pipeline is nested in, and adding
/// a module pass to a func.func pass manager is a fatal error (the host
/// aborts); nested where it cannot run, the pipeline is a parse error.
static void registerModulePipeline(
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
  prof::registerSnapshotPass();
  prof::registerProfilePass();
  if (PassPipelineInfo::lookup("q2-qpe-pipeline"))
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
  registerModulePipeline(
      "q2-qpe-pipeline", "All six QPE stages, stage 0 MLIR to an object file",
      [](OpPassManager &pm, const PipelineCLOptions &o) {
        // report= alone turns the snapshots on (a report that is silently
        // not written would be a trap); profile=false turns them off.
        bool profile = o.profile.hasValue() ? bool(o.profile) : !o.report.empty();
        pm.addPass(std::make_unique<QPEPipelinePass>(o.get(), o.output,
                                                     profile, o.report));
      });
}
