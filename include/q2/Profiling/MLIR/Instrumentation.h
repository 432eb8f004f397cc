//===- Instrumentation.h - MLIR pass profiling ------------------*- C++ -*-===//
//
// A PassInstrumentation that records every pass a PassManager runs into a
// ProfilingSession (q2/Profiling/Session.h): wall/CPU time, RSS before and
// after, nesting, and optionally the IR size after each pass. Any MLIR tool
// can attach it:
//
//   ProfilingSession session;
//   context.disableMultithreading();        // exact per-pass attribution
//   mlir::PassManager pm(&context);
//   attachProfiling(pm, session);
//   session.beginStage("HLOLowering");
//   (void)pm.run(module);
//   session.endStage();
//
//===----------------------------------------------------------------------===//
#ifndef Q2_PROFILING_MLIR_INSTRUMENTATION_H
#define Q2_PROFILING_MLIR_INSTRUMENTATION_H

#include "q2/Profiling/MLIR/IRMetrics.h"
#include "q2/Profiling/Session.h"

#include <memory>

namespace mlir {
class PassManager;
} // namespace mlir

namespace q2::profiling {

struct InstrumentationOptions {
  /// Measure IR after every (non-adaptor) pass: `--profile-passes`.
  bool irMetricsPerPass = false;
  /// What to measure after a pass: false = the top-level op containing the
  /// op the pass ran on (the whole module), true = only that op. Forced to
  /// true when the context is multithreaded (printing the module while other
  /// threads rewrite functions would race).
  bool irMetricsOfPassOpOnly = false;
  /// Where measurements go (and how IR is printed for them); shared with
  /// the owner so a stage end can reuse the last pass's measurement. Null:
  /// a private cache with default options.
  std::shared_ptr<IRMetricsCache> cache;
};

/// Adds the instrumentation for `session` to `pm` (the PassManager owns it;
/// `session` must outlive every run of `pm`). With `disableThreading` it
/// also calls disableMultithreading() on the context. If the context is
/// still multithreaded when passes run, the session records (once) a
/// warning: per-pass memory attribution is then not exact.
void attachProfiling(mlir::PassManager &pm, ProfilingSession &session,
                     InstrumentationOptions options = {},
                     bool disableThreading = false);

} // namespace q2::profiling

#endif // Q2_PROFILING_MLIR_INSTRUMENTATION_H
