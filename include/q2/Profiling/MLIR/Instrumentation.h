//===- Instrumentation.h - Pass and stage profiling -------------*- C++ -*-===//
//
// ProfilingSession collects everything one profiled compilation produces:
// stage records (snapshots at the boundaries, per-stage peak RSS), pass
// records (from ProfilingInstrumentation, a PassInstrumentation that can be
// attached to any mlir::PassManager), free-standing snapshots, and an
// optional RSS timeline. It renders them as JSON and as a Chrome trace.
//
// Usage:
//   ProfilingSession session(opts);
//   if (auto err = session.startTimeline(/*intervalMs=*/10)) ...
//   context.disableMultithreading();        // exact per-pass attribution
//   mlir::PassManager pm(&context);
//   attachProfiling(pm, session);
//   session.beginStage("HLOLowering");
//   (void)pm.run(module);
//   session.endStage()->ir = measureIR(module);
//   session.stopTimeline();
//   json report = session.toJSON();
//
// Threading: all methods may be called from any thread, but per-pass RSS and
// the pass named at the RSS peak are only meaningful when the context runs
// passes on one thread (MLIRContext::disableMultithreading()); the
// instrumentation records a warning otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef Q2_PROFILING_INSTRUMENTATION_H
#define Q2_PROFILING_INSTRUMENTATION_H

#include "q2/Profiling/IRMetrics.h"
#include "q2/Profiling/Memory.h"
#include "q2/Profiling/Timeline.h"

#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/PassInstrumentation.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace mlir {
class PassManager;
class Pass;
} // namespace mlir

namespace q2::profiling {

class ChromeTrace;

/// One execution of one pass on one operation.
struct PassRecord {
  int64_t index = 0;
  int64_t parent = -1;    ///< enclosing record (pipeline adaptor), or -1
  unsigned depth = 0;     ///< 0 for passes of the top-level pipeline
  int thread = 0;         ///< 0 = first thread seen, 1, 2 ... worker threads
  std::string name;       ///< Pass::getName() (C++ class name for most)
  std::string argument;   ///< command-line argument ("canonicalize"), or ""
  std::string opName;     ///< op it ran on ("builtin.module", "func.func")
  std::string opSymbol;   ///< sym_name of that op, if it has one
  std::string stage;      ///< stage open when it started, or ""
  bool isAdaptor = false; ///< an op-to-op pipeline adaptor (a nested pipeline)
  bool failed = false;
  bool finished = false;
  double startS = 0, endS = 0; ///< epoch seconds (raw span, for traces)
  /// Wall / process CPU of the pass, minus time the profiler itself spent
  /// inside it (e.g. printing IR for nested passes' metrics).
  double wallS = 0, cpuS = 0;
  double selfWallS = 0;                 ///< wallS minus nested passes' wallS
  double profilerS = 0;                 ///< profiler time excluded from wallS
  uint64_t rssBefore = 0, rssAfter = 0; ///< bytes (statm)
  int64_t rssDelta = 0;
  std::optional<IRMetrics> irAfter; ///< with ProfilingOptions::irMetricsPerPass
  /// The label used for the timeline ("argument", or the name without one).
  std::string label() const;
  nlohmann::json toJSON() const;
};

/// One stage between beginStage() and endStage().
struct StageRecord {
  std::string name;
  int64_t index = 0;
  MemorySnapshot begin, end;
  double wallS = 0, cpuS = 0;
  /// Whether the kernel accepted the VmHWM reset at the stage start.
  bool peakResetAccepted = false;
  std::string peakResetError;
  /// The stage's peak RSS and where it comes from: "kernel_hwm" (VmHWM after
  /// a successful reset) or "sampled" (max of the timeline samples in the
  /// stage and the two boundary snapshots).
  uint64_t peakRSS = 0;
  std::string peakSource;
  uint64_t sampledPeakRSS = 0;
  std::optional<TimelineSample> sampledPeak; ///< when a timeline runs
  /// Passes started in this stage: [firstPass, endPass) of passes().
  size_t firstPass = 0, endPass = 0;
  double profilerS = 0; ///< profiler overhead inside the stage's passes
  /// Filled by the caller after endStage() (IR after the stage, ...).
  std::optional<IRMetrics> ir;
  nlohmann::json extra = nlohmann::json::object();
  nlohmann::json toJSON() const;
};

struct ProfilingOptions {
  /// Reset VmHWM at each beginStage() for per-stage kernel peaks.
  bool resetPeakPerStage = true;
  /// Include smaps_rollup in stage-boundary snapshots.
  bool smapsAtStageBoundaries = false;
  /// Measure IR after every (non-adaptor) pass: `--profile-passes`.
  bool irMetricsPerPass = false;
  /// What to measure after a pass: false = the top-level op containing the
  /// op the pass ran on (the whole module), true = only that op. Forced to
  /// true when the context is multithreaded (printing the module while other
  /// threads rewrite functions would race).
  bool irMetricsOfPassOpOnly = false;
  IRMetricsOptions irOptions;
  /// Print warnings (e.g. multithreading enabled) to stderr as they occur.
  bool warnOnStderr = true;
};

class ProfilingSession {
public:
  explicit ProfilingSession(ProfilingOptions options = {});
  ~ProfilingSession();
  ProfilingSession(const ProfilingSession &) = delete;
  ProfilingSession &operator=(const ProfilingSession &) = delete;

  const ProfilingOptions &options() const { return opts; }
  ProfilingOptions &options() { return opts; }
  PhaseTracker &phase() { return tracker; }

  /// Starts an owned TimelineSampler tagged by this session's phases.
  llvm::Error startTimeline(const TimelineSampler::Options &options);
  llvm::Error startTimeline(int intervalMs = 100);
  void stopTimeline();
  /// The sampler, or null if none was started.
  TimelineSampler *timeline() { return sampler.get(); }
  const TimelineSampler *timeline() const { return sampler.get(); }

  /// Closes an open stage, then snapshots, resets VmHWM (if enabled) and
  /// tags the timeline with `name`.
  void beginStage(llvm::StringRef name);
  /// Snapshots and completes the open stage; null if none is open. The
  /// pointer stays valid until the next beginStage().
  StageRecord *endStage();
  bool inStage() const;
  /// Name of the open stage, or "".
  std::string currentStageName() const;

  /// A labelled snapshot kept in snapshots() (e.g. "after-parse").
  llvm::Expected<MemorySnapshot> snapshot(llvm::StringRef label,
                                          bool withSmaps = false);

  /// IR metrics of `op` with the session's IRMetricsOptions. Reuses the
  /// last measurement when `op` is the op measured last and structurally
  /// unchanged since (same OperationFingerPrint), so a pass that changed
  /// nothing, or a stage end right after its last pass was measured, costs
  /// a hash instead of a print. Call from one thread at a time.
  IRMetrics measureIRCached(mlir::Operation *op);

  /// Copies (records may be appended concurrently by the instrumentation).
  std::vector<PassRecord> passes() const;
  std::vector<StageRecord> stages() const;
  std::vector<MemorySnapshot> snapshots() const;
  std::vector<std::string> warnings() const;
  void warn(llvm::StringRef message);

  /// Highest VmHWM seen, including values from before each reset: the
  /// process's peak RSS so far, which VmHWM alone no longer gives once it
  /// has been reset.
  uint64_t lifetimePeakRSS() const;

  /// {"stages", "passes", "snapshots", "timeline", "warnings",
  ///  "lifetime_peak_rss_bytes", "profiler_overhead_s"}.
  nlohmann::json toJSON(bool withSamples = true) const;
  /// Stages and passes as spans, snapshots as instants, the timeline as an
  /// RSS counter.
  void exportTrace(ChromeTrace &trace) const;

private:
  /// measureIRCached(): the last op measured, its fingerprint, metrics.
  struct LastMeasure {
    mlir::Operation *target = nullptr;
    std::optional<mlir::OperationFingerPrint> print;
    IRMetrics metrics;
  } lastIR;
  friend class ProfilingInstrumentation;
  /// Per-thread nesting. Frames are pass records and, for nested pipelines,
  /// markers naming the adaptor that owns the pipeline (on worker threads the
  /// adaptor itself ran on another thread). A thread waiting for parallel
  /// work may run another pipeline re-entrantly; the stack stays LIFO.
  struct Frame {
    int64_t index;
    bool marker;
  };
  struct ThreadState {
    std::vector<Frame> stack;
    double profilerWall = 0; ///< profiler time spent on this thread so far
    int tid = 0;
  };
  struct OpenStage {
    StageRecord record;
    double overheadAtStart = 0;
  };
  ThreadState &threadState(); // requires `mutex`
  void noteHWM(uint64_t hwm); // requires `mutex`

  ProfilingOptions opts;
  PhaseTracker tracker;
  RSSReader rssReader;
  std::unique_ptr<TimelineSampler> sampler;

  mutable std::mutex mutex; // guards the records below
  std::vector<PassRecord> passRecords;
  /// Bookkeeping parallel to passRecords.
  struct PassAux {
    const mlir::Pass *pass = nullptr;
    double childWall = 0; ///< sum of nested records' wallS
    double profWall0 = 0; ///< thread's profilerWall at the pass start
    double cpu0 = 0;
  };
  std::vector<PassAux> passAux;
  /// Unfinished records per pass instance (to find a pipeline's adaptor).
  std::unordered_map<const mlir::Pass *, std::vector<int64_t>> openByPass;
  std::vector<StageRecord> stageRecords;
  std::optional<OpenStage> openStage;
  std::vector<MemorySnapshot> snaps;
  std::vector<std::string> warningList;
  std::unordered_map<std::thread::id, ThreadState> threads;
  double totalProfilerS = 0;
  uint64_t maxHWM = 0;
  bool warnedThreading = false;
};

/// beginStage() on construction, endStage() on finish() or destruction, so
/// an early return still closes the stage. finish() returns the record (to
/// attach IR metrics); null if the stage was already closed, e.g. by a later
/// beginStage().
class ScopedStage {
public:
  ScopedStage(ProfilingSession &session, llvm::StringRef name)
      : session(session), name(name.str()) {
    session.beginStage(name);
  }
  ~ScopedStage() { finish(); }
  ScopedStage(const ScopedStage &) = delete;
  ScopedStage &operator=(const ScopedStage &) = delete;
  StageRecord *finish() {
    if (done)
      return nullptr;
    done = true;
    return session.inStage() && session.currentStageName() == name
               ? session.endStage()
               : nullptr;
  }

private:
  ProfilingSession &session;
  std::string name;
  bool done = false;
};

/// Records every pass run by the PassManager it is attached to into a
/// session, and publishes the running pass to the session's timeline.
class ProfilingInstrumentation : public mlir::PassInstrumentation {
public:
  explicit ProfilingInstrumentation(ProfilingSession &session)
      : session(session) {}
  void runBeforePipeline(std::optional<mlir::OperationName> name,
                         const PipelineParentInfo &parentInfo) override;
  void runAfterPipeline(std::optional<mlir::OperationName> name,
                        const PipelineParentInfo &parentInfo) override;
  void runBeforePass(mlir::Pass *pass, mlir::Operation *op) override;
  void runAfterPass(mlir::Pass *pass, mlir::Operation *op) override;
  void runAfterPassFailed(mlir::Pass *pass, mlir::Operation *op) override;

private:
  void finish(mlir::Pass *pass, mlir::Operation *op, bool failed);
  ProfilingSession &session;
};

/// Adds a ProfilingInstrumentation for `session` to `pm` (the PassManager
/// owns the instrumentation; `session` must outlive every run of `pm`).
/// With `disableThreading` it also calls disableMultithreading() on the
/// context. If the context is still multithreaded when passes run, the
/// session records (once) a warning: per-pass memory attribution is then
/// not exact.
void attachProfiling(mlir::PassManager &pm, ProfilingSession &session,
                     bool disableThreading = false);

} // namespace q2::profiling

#endif // Q2_PROFILING_INSTRUMENTATION_H
