//===- SnapshotPass.cpp - q2-snapshot: a memory/IR snapshot pass ----------===//
//
// One record per run, appended to a JSON report with a read-modify-write
// that always goes through a temporary file + rename (a killed process never
// leaves a truncated report). The pass only reads the IR.
//
//===----------------------------------------------------------------------===//
#include "q2/Profiling/MLIR/SnapshotPass.h"
#include "q2/Profiling/MLIR/IRMetrics.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"

#include <mutex>

using namespace mlir;
using namespace q2::profiling;

llvm::Expected<SnapshotEntry>
q2::profiling::snapshotWithIR(llvm::StringRef label, mlir::Operation *op,
                              bool withSmaps) {
  auto snap = takeSnapshot(label, 0, withSmaps);
  if (!snap)
    return snap.takeError();
  SnapshotEntry e;
  e.snapshot = std::move(*snap);
  if (op)
    e.ir = measureIR(op);
  return e;
}

namespace {

struct SnapshotPass : PassWrapper<SnapshotPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SnapshotPass)

  SnapshotPass() = default;
  SnapshotPass(const SnapshotPass &other) : PassWrapper(other) {}

  llvm::StringRef getArgument() const override { return "q2-snapshot"; }
  llvm::StringRef getDescription() const override {
    return "Append a memory snapshot and the IR metrics of the module to a "
           "JSON report (the module is unchanged)";
  }

  LogicalResult initializeOptions(
      llvm::StringRef options,
      llvm::function_ref<LogicalResult(const llvm::Twine &)> errorHandler)
      override {
    if (failed(Pass::initializeOptions(options, errorHandler)))
      return failure();
    // Reject at pipeline-parse time, before any pass has run.
    if (report.empty())
      return errorHandler(missingReport());
    return success();
  }

  LogicalResult initialize(MLIRContext *ctx) override {
    // Same check for passes built in C++ (createSnapshotPass).
    if (report.empty())
      return emitError(UnknownLoc::get(ctx)) << missingReport();
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    markAllAnalysesPreserved();
    auto record = snapshotWithIR(label, module, smaps);
    if (!record) {
      // At the module's location, not on the op: mlir-opt would attach a
      // dump of the whole module to an op diagnostic.
      emitError(module.getLoc()) << "q2-snapshot{label=" << label
                                 << "}: " << llvm::toString(record.takeError());
      return signalPassFailure();
    }
    if (llvm::Error e = appendSnapshot(report, std::move(*record))) {
      emitError(module.getLoc()) << "q2-snapshot{label=" << label
                                 << "}: " << llvm::toString(std::move(e));
      return signalPassFailure();
    }
  }

  std::string missingReport() const {
    return "q2-snapshot{label=" + label +
           "}: the 'report' option is required (the JSON file to append "
           "the snapshot to), e.g. q2-snapshot{label=after-cse "
           "report=snapshots.json} or q2-qpe-pipeline{profile=true "
           "report=snapshots.json}";
  }

  Option<std::string> label{*this, "label",
                            llvm::cl::desc("Label of the record"),
                            llvm::cl::init("snapshot")};
  Option<std::string> report{
      *this, "report",
      llvm::cl::desc("JSON report to append to (created if missing; "
                     "schema q2.snapshots/1)")};
  Option<bool> smaps{*this, "smaps",
                     llvm::cl::desc("Also record /proc/self/smaps_rollup"),
                     llvm::cl::init(false)};
};

} // namespace

std::unique_ptr<Pass> q2::profiling::createSnapshotPass(std::string label,
                                                        std::string report,
                                                        bool withSmaps) {
  auto pass = std::make_unique<SnapshotPass>();
  pass->label = std::move(label);
  pass->report = std::move(report);
  pass->smaps = withSmaps;
  return pass;
}

void q2::profiling::registerSnapshotPass() {
  if (PassInfo::lookup("q2-snapshot"))
    return;
  PassRegistration<SnapshotPass>();
}
