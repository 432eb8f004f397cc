//===- QPEPipelinePass.cpp - q2-qpe-pipeline: a hosted compile session ----===//
#include "q2/Session/QPEPipelinePass.h"

#include "q2/Pipeline/Passes.h"
#include "q2/Session/CompileSession.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace q2::pipeline;

namespace {

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

} // namespace

void q2::session::registerQPEPipelinePass() {
  if (PassPipelineInfo::lookup("q2-qpe-pipeline"))
    return;
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
