//===- StageHooks.h - A compile session's hooks on the stages ---*- C++ -*-===//
//
// The one set of CompileHooks of a compile session: the profiler (stage and
// pass records, --profile-passes IR metrics), MLIR's pass-manager command
// line options, the stage and pass a diagnostic comes from, and the
// --ir-dir files (per stage, or per pass with Keep::Pass). The
// q2-qpe-pipeline pass (a hosted session) adds its own stage runner
// (nested pipelines of the host's pass manager) and an extra observer.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_SESSION_STAGEHOOKS_H
#define Q2_SESSION_STAGEHOOKS_H

#include "q2/Pipeline/Pipeline.h"
#include "q2/Session/SessionOptions.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace q2::profiling {
class IRMetricsCache;
class ProfilingSession;
class ScopedStage;
} // namespace q2::profiling

namespace q2::session {

/// The stage and pass running now, so that a diagnostic can say where in
/// the pipeline it came from.
struct WhereAmI {
  std::string stage, pass;
};

class StageHooks : public pipeline::CompileHooks {
public:
  /// What the hooks do beyond running the stages is the session's options
  /// (kept by reference): per-pass IR metrics (profilePasses; needs a
  /// profiler), MLIR's pass-manager command line (mlirCommandLine), the IR
  /// after each stage or pass (irDir, keep; 0_Input.mlir is the
  /// session's). `profiler` may be null (nothing measured); `irCache` may
  /// be null.
  StageHooks(const SessionOptions &opts, WhereAmI &where,
             profiling::ProfilingSession *profiler,
             std::shared_ptr<profiling::IRMetricsCache> irCache = nullptr);
  ~StageHooks() override;

  /// Runs an MLIR stage's pass manager instead of a fresh PassManager
  /// (a pass running the stages as dynamic pipelines of its own).
  std::function<mlir::LogicalResult(mlir::OpPassManager &, mlir::ModuleOp)>
      runNested;
  /// Called after each stage, after the hooks' own work.
  std::function<llvm::Error(const pipeline::StageOutput &)> alsoAfterStage;

  void configure(pipeline::Stage s, mlir::PassManager &pm) override;
  mlir::LogicalResult
  runStage(pipeline::Stage s, mlir::ModuleOp module,
           llvm::function_ref<void(mlir::OpPassManager &)> addPasses) override;
  void beforeStage(pipeline::Stage s) override;
  void step(const pipeline::StepEvent &e) override;
  llvm::Error afterStage(const pipeline::StageOutput &out) override;

private:
  llvm::Error measureAndWrite(const pipeline::StageOutput &out);

  const SessionOptions &opts;
  WhereAmI &where;
  profiling::ProfilingSession *profiler;
  std::shared_ptr<profiling::IRMetricsCache> irCache;
  std::unique_ptr<profiling::ScopedStage> stage;
  std::string dumpError; ///< a Keep::Pass write error
  std::string cliError;
};

} // namespace q2::session

#endif // Q2_SESSION_STAGEHOOKS_H
