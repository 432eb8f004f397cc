//===- Session.h - One profiled run: stages, passes, snapshots --*- C++ -*-===//
//
// ProfilingSession collects what one profiled run produces: stage records
// (snapshots at the boundaries, per-stage peak RSS), pass records, free
// snapshots and an optional RSS timeline. It knows nothing about MLIR: the
// MLIR pass instrumentation (q2/Profiling/MLIR/Instrumentation.h) and
// non-MLIR steps (LLVM code generation, a Python `profile_section`) record
// passes through the same beginPass/endPass calls.
//
//   ProfilingSession session;
//   if (auto err = session.startTimeline(10)) ...
//   session.beginStage("HLOLowering");
//   ... run passes (attach the MLIR instrumentation to the PassManager) ...
//   session.endStage()->ir = ...;
//   SessionRecord rec = session.record();
//
// Threading: all methods may be called from any thread, but per-pass RSS and
// the pass named at the RSS peak are only meaningful when passes run on one
// thread; beginPass records a warning otherwise. Heap figures
// (q2/Profiling/Heap.h) are the whole process's at every moment: with
// several threads a pass's peak includes what the others hold then.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_PROFILING_SESSION_H
#define Q2_PROFILING_SESSION_H

#include "q2/Profiling/Records.h"
#include "q2/Profiling/Timeline.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace q2::profiling {

class ChromeTrace;

struct ProfilingOptions {
  /// Reset VmHWM at each beginStage() for per-stage kernel peaks.
  bool resetPeakPerStage = true;
  /// Include smaps_rollup in stage-boundary snapshots.
  bool smapsAtStageBoundaries = false;
  /// Print warnings (e.g. multithreading enabled) to stderr as they occur.
  bool warnOnStderr = true;
  /// A beginStage() that directly follows an endStage() (no pass or
  /// snapshot in between) takes the end snapshot as its begin snapshot
  /// instead of reading /proc and the heap again: for callers whose stages
  /// are back to back (q2-profile), where mallinfo2 alone can cost
  /// milliseconds on a large heap.
  bool chainStageSnapshots = false;
};

/// What beginPass() needs to know about a pass (or step).
struct PassStart {
  /// Pass::getName() (what --mlir-timing prints: "Canonicalizer"), for an
  /// adaptor the name --mlir-timing gives its pipeline ("'func.func'
  /// Pipeline"), or the step's name.
  std::string name;
  std::string argument; ///< command-line name ("canonicalize"), or ""
  std::string opName;   ///< op it runs on, or "" for non-MLIR steps
  std::string opSymbol; ///< sym_name of that op, if any
  bool isAdaptor = false;
  /// The caller runs passes on several threads (attribution is not exact).
  bool multithreaded = false;
};

class ProfilingSession {
public:
  explicit ProfilingSession(ProfilingOptions options = {});
  ~ProfilingSession();
  ProfilingSession(const ProfilingSession &) = delete;
  ProfilingSession &operator=(const ProfilingSession &) = delete;

  const ProfilingOptions &options() const;
  PhaseTracker &phase();

  /// Starts an owned TimelineSampler tagged by this session's phases.
  llvm::Error startTimeline(const TimelineSampler::Options &options);
  llvm::Error startTimeline(int intervalMs = 100);
  void stopTimeline();
  /// The sampler, or null if none was started.
  TimelineSampler *timeline();
  const TimelineSampler *timeline() const;

  /// Closes an open stage, then snapshots, resets VmHWM (if enabled) and
  /// tags the timeline with `name`.
  void beginStage(llvm::StringRef name, StageKind kind = StageKind::Compile);
  /// Snapshots and completes the open stage; null if none is open. The
  /// pointer stays valid until the next beginStage().
  StageRecord *endStage();
  bool inStage() const;
  /// Name of the open stage, or "".
  std::string currentStageName() const;

  /// A labelled snapshot kept in the record (e.g. "after-parse").
  llvm::Expected<MemorySnapshot> snapshot(llvm::StringRef label,
                                          bool withSmaps = false);

  /// Opens a pass record on the calling thread. `key` identifies the running
  /// pass object (endPass and nested pipelines refer to it). Returns the
  /// record's index.
  int64_t beginPass(const void *key, PassStart info);
  /// Stops the clocks of the innermost open record of `key` on this thread
  /// and closes it; returns its index, or -1 if it is not open here.
  int64_t endPass(const void *key, bool failed = false);
  /// Attaches IR metrics measured after the pass (call after endPass).
  void setPassIR(int64_t index, IRMetrics ir);
  /// A nested pipeline starts / ends on this thread; `parentKey` is the pass
  /// that runs it (a pipeline adaptor, or a pass such as the inliner that
  /// runs a pipeline of its own), `opName` the op kind it runs on.
  void beginPipeline(const void *parentKey, llvm::StringRef opName);
  void endPipeline();
  /// Time the caller spent on profiling work on this thread (e.g. measuring
  /// IR after a pass): excluded from the enclosing passes' times.
  void chargeProfilerTime(double wallS);
  /// Runs `work`, profiling work outside any pass (e.g. measuring the IR a
  /// stage left, after endStage()), and charges its time to the profiler
  /// and to `stage`'s profiler time (if given). Returns the seconds charged.
  double chargeWork(StageRecord *stage, llvm::function_ref<void()> work);

  /// Copies (records may be appended concurrently).
  std::vector<PassRecord> passes() const;
  std::vector<StageRecord> stages() const;
  std::vector<MemorySnapshot> snapshots() const;
  std::vector<std::string> warnings() const;
  void warn(llvm::StringRef message);

  /// Highest VmHWM seen, including values from before each reset: the
  /// process's peak RSS so far, which VmHWM alone no longer gives once it
  /// has been reset.
  uint64_t lifetimePeakRSS() const;

  /// The session's heap peak so far (from its start), where it was
  /// reached, and the process's lifetime heap peak.
  HeapPeakRecord heapPeak() const;

  /// Everything recorded. A peak sampled between passes names the stage's
  /// pass that finished last (`lastPass`).
  SessionRecord record(bool withSamples = true) const;
  /// Stages and passes as spans, snapshots as instants, the timeline as an
  /// RSS counter.
  void exportTrace(ChromeTrace &trace) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// beginStage() on construction, endStage() on finish() or destruction, so
/// an early return still closes the stage. finish() returns the record (to
/// attach IR metrics); null if the stage was already closed, e.g. by a later
/// beginStage().
class ScopedStage {
public:
  ScopedStage(ProfilingSession &session, llvm::StringRef name,
              StageKind kind = StageKind::Compile)
      : session(session), name(name.str()) {
    session.beginStage(name, kind);
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

/// A non-MLIR step recorded like a pass (e.g. "llvm-codegen" in stage 6).
class ScopedPass {
public:
  ScopedPass(ProfilingSession *session, llvm::StringRef argument,
             llvm::StringRef name = "")
      : session(session) {
    if (session)
      index = session->beginPass(this, {name.empty() ? argument.str()
                                                     : name.str(),
                                        argument.str(), "", "", false, false});
  }
  ~ScopedPass() { finish(); }
  ScopedPass(const ScopedPass &) = delete;
  ScopedPass &operator=(const ScopedPass &) = delete;
  /// Closes the record; returns its index (-1 without a session).
  int64_t finish(bool failed = false) {
    if (session && !done)
      session->endPass(this, failed);
    done = true;
    return session ? index : -1;
  }

private:
  ProfilingSession *session;
  int64_t index = -1;
  bool done = false;
};

} // namespace q2::profiling

#endif // Q2_PROFILING_SESSION_H
