//===- SnapshotPass.cpp - q2-snapshot: a memory/IR snapshot pass ----------===//
//
// One record per run, appended to a JSON report with a read-modify-write
// that always goes through a temporary file + rename (a killed process never
// leaves a truncated report). The pass only reads the IR.
//
//===----------------------------------------------------------------------===//
#include "q2/Pipeline/SnapshotPass.h"
#include "q2/Pipeline/Pipeline.h"

#include "q2/Profiling/IRMetrics.h"
#include "q2/Profiling/Report.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"

#include <mutex>

using namespace mlir;
using namespace q2::pipeline;
namespace prof = q2::profiling;

namespace {

/// Appends `record` to the snapshot report `path`, creating it if missing.
/// Refuses, without touching it, any existing file that is not a
/// q2.snapshots/1 report (e.g. a q2-opt --report file or some other JSON).
llvm::Error appendSnapshot(llvm::StringRef path, nlohmann::json record) {
  // Passes on nested modules may run on several threads: serialize the
  // read-modify-write within the process (other processes must not share
  // the file, see docs/profiling-api.md).
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  nlohmann::json doc;
  if (llvm::sys::fs::exists(path)) {
    auto existing = prof::readJSONFile(path);
    if (!existing)
      return existing.takeError();
    doc = std::move(*existing);
    if (!doc.is_object() || !doc.contains("schema") ||
        doc["schema"] != kSnapshotSchema || !doc.contains("snapshots") ||
        !doc["snapshots"].is_array())
      return llvm::createStringError(
          path + ": not a q2-snapshot report (an object with \"schema\": \"" +
          kSnapshotSchema + "\" and a \"snapshots\" array); refusing to "
          "overwrite it");
  } else {
    doc = {{"schema", kSnapshotSchema},
           {"snapshots", nlohmann::json::array()}};
  }
  record["index"] = doc["snapshots"].size();
  doc["snapshots"].push_back(std::move(record));
  return prof::writeJSONAtomically(path, doc);
}

struct SnapshotPass : PassWrapper<SnapshotPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SnapshotPass)

  SnapshotPass() = default;
  // Pass options are copied by Pass's copy constructor; the rest by hand.
  SnapshotPass(const SnapshotPass &other)
      : PassWrapper(other), artifacts(other.artifacts) {}

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
    auto record = prof::snapshotWithIR(label, module, {}, smaps);
    if (!record) {
      // At the module's location, not on the op: mlir-opt would attach a
      // dump of the whole module to an op diagnostic.
      emitError(module.getLoc()) << "q2-snapshot{label=" << label
                                 << "}: " << llvm::toString(record.takeError());
      return signalPassFailure();
    }
    if (artifacts) {
      // Stage 6 codegen rewrites the LLVM module in place, so once the
      // object exists only the object is meaningful.
      if (!artifacts->object.empty())
        (*record)["object"] =
            prof::measureBuffer(llvm::StringRef(artifacts->object.data(),
                                                artifacts->object.size()))
                .toJSON();
      else if (artifacts->llvmModule)
        (*record)["llvm_ir"] = prof::measureIR(*artifacts->llvmModule).toJSON();
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

  std::shared_ptr<Artifacts> artifacts;
};

} // namespace

std::unique_ptr<Pass>
q2::pipeline::createSnapshotPass(std::string label, std::string report,
                                 std::shared_ptr<Artifacts> artifacts,
                                 bool withSmaps) {
  auto pass = std::make_unique<SnapshotPass>();
  pass->label = std::move(label);
  pass->report = std::move(report);
  pass->smaps = withSmaps;
  pass->artifacts = std::move(artifacts);
  return pass;
}

void q2::pipeline::registerSnapshotPass() {
  if (PassInfo::lookup("q2-snapshot"))
    return;
  PassRegistration<SnapshotPass>();
}
