//===- SnapshotPass.cpp - q2-snapshot: a memory/IR snapshot pass ----------===//
//
// One record per run, appended to a JSON report with a read-modify-write
// that always goes through a temporary file + rename (a killed process never
// leaves a truncated report). The pass only reads the IR.
//
//===----------------------------------------------------------------------===//
#include "q2/Profiling/MLIR/SnapshotPass.h"
#include "q2/Profiling/MLIR/IRMetrics.h"

#include "ReportingPass.h"

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

struct SnapshotPass : q2::profiling::detail::ReportingPass<SnapshotPass> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SnapshotPass)

  SnapshotPass() = default;
  SnapshotPass(const SnapshotPass &other) : Base(other) {}

  llvm::StringRef getArgument() const override { return "q2-snapshot"; }
  llvm::StringRef getDescription() const override {
    return "Append a memory snapshot and the IR metrics of the module to a "
           "JSON report (the module is unchanged)";
  }

  llvm::Error checkOptions() const {
    if (report.empty())
      return llvm::createStringError(missingReport());
    return llvm::Error::success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    markAllAnalysesPreserved();
    std::string prefix = "q2-snapshot{label=" + label + "}: ";
    auto record = snapshotWithIR(label, module, smaps);
    if (!record)
      return failAtModule(prefix, llvm::toString(record.takeError()));
    if (llvm::Error e = appendSnapshot(report, std::move(*record)))
      return failAtModule(prefix, llvm::toString(std::move(e)));
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
