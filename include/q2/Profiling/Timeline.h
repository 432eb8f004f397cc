//===- Timeline.h - RSS timeline sampler ------------------------*- C++ -*-===//
//
// Samples a process's RSS every N ms and tags each sample with the stage and
// pass running at that moment (published through a PhaseTracker by the
// instrumentation). It remembers the peak sample and captures
// /proc/<pid>/smaps_rollup as the peak grows, so a report can say what the
// memory was made of at the peak and which pass was running.
//
// Two backends (docs/profiling-api.md has the measurements):
//  - signal: a POSIX timer interrupts the profiled thread, whose handler
//    reads /proc/self/statm (async-signal-safe, ~3 us). No second thread, so
//    glibc malloc stays on its single-thread fast path: this is what keeps
//    the profiler under 5 % of a 0.15 s compile. Default for self-sampling.
//  - thread: a sampler thread; needed to watch another process, and
//    available for hosts that cannot take a signal.
//
//===----------------------------------------------------------------------===//

#ifndef Q2_PROFILING_TIMELINE_H
#define Q2_PROFILING_TIMELINE_H

#include "q2/Profiling/Memory.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace q2::profiling {

class ChromeTrace;

/// When to read smaps_rollup, which walks every page table (~12 us per MB
/// resident here) and so costs the profiled run real time. During the run:
/// once the RSS has grown past the last capture (or the first sample) by
/// max(minGrowthBytes, minGrowthFraction of it), while near the peak, and
/// only while all reads together stay within `budget` of the elapsed time.
/// At the end: one more if there is none, or if the run ends at a peak the
/// captures missed. Arithmetic only: it is used from a signal handler.
struct SmapsPolicy {
  uint64_t minGrowthBytes = 4u << 20;
  double minGrowthFraction = 0.05;
  double budget = 0.02; ///< share of elapsed time spent reading smaps

  double startT = -1;   ///< first sample; < 0 = none yet
  uint64_t baseRSS = 0; ///< RSS of the first sample
  bool have = false;    ///< a capture exists
  uint64_t atRSS = 0;   ///< RSS of the captured sample
  double spent = 0;     ///< seconds spent reading smaps so far
  double costPerByte = 12e-6 / double(1 << 20); ///< updated by each read

  void noteFirst(uint64_t rss, double t) {
    if (startT < 0) {
      startT = t;
      baseRSS = rss;
    }
  }
  uint64_t threshold() const {
    uint64_t ref = have ? atRSS : baseRSS;
    uint64_t frac = uint64_t(minGrowthFraction * double(ref));
    return frac > minGrowthBytes ? frac : minGrowthBytes;
  }
  bool due(uint64_t rss, uint64_t peakRSS, double t) const {
    uint64_t ref = have ? atRSS : baseRSS;
    uint64_t thr = threshold();
    bool grown = rss >= ref + thr && rss + thr > peakRSS;
    double cost = costPerByte * double(rss);
    return grown && spent + cost <= budget * (t - startT);
  }
  bool dueAtEnd(uint64_t rss, uint64_t peakRSS) const {
    return !have || (rss >= peakRSS && rss >= atRSS + threshold());
  }
  /// After a read that took [c0, c1] for a sample of `rss`; true when it
  /// replaces the current capture.
  bool captured(uint64_t rss, double c0, double c1) {
    spent += c1 - c0;
    if (rss)
      costPerByte = (c1 - c0) / double(rss);
    if (have && rss <= atRSS)
      return false;
    have = true;
    atRSS = rss;
    return true;
  }
};

/// The "current stage / current pass" shared between the thread running the
/// compiler (writer) and the sampler thread (reader). Names are interned to
/// small ids so that a sample costs a few words, not two strings.
class PhaseTracker {
public:
  struct Phase {
    uint32_t stage = 0;  ///< interned id; 0 = none
    uint32_t pass = 0;   ///< interned id; 0 = none
    int64_t record = -1; ///< index of the pass in the session's records
    uint64_t generation = 0;
  };

  PhaseTracker();
  /// Sets the stage and clears the pass.
  void setStage(llvm::StringRef stage);
  void setPass(llvm::StringRef pass, int64_t record = -1);
  Phase current() const;
  /// The name for an id returned in a Phase ("" for 0 or unknown ids).
  std::string name(uint32_t id) const;
  /// Bumped on every change; lets a reader detect that the phase changed
  /// while it was measuring.
  uint64_t generation() const {
    return seq.load(std::memory_order_acquire) / 2; // odd: change in progress
  }
  /// Lock-free read for a signal handler running on the writer's thread:
  /// false when it interrupted a change (the fields are then unusable).
  bool tryCurrent(uint32_t &stage, uint32_t &pass, int64_t &record) const;

private:
  uint32_t intern(llvm::StringRef s); // requires `mutex` held
  mutable std::mutex mutex;
  std::vector<std::string> names;
  llvm::StringMap<uint32_t> ids;
  Phase cur;
  // Copy of `cur` under a sequence lock (odd while written, +2 per change:
  // generation() is half of it), for tryCurrent.
  std::atomic<uint64_t> seq{0};
  std::atomic<uint32_t> aStage{0}, aPass{0};
  std::atomic<int64_t> aRecord{-1};
  uint64_t publish(); // requires `mutex` held; returns the new generation
};

/// One timeline point.
struct TimelineSample {
  double t = 0;      ///< seconds since the profiling epoch
  uint64_t rss = 0;  ///< bytes
  std::string stage; ///< "" when none was set
  std::string pass;  ///< "" when no pass was running
  int64_t passRecord = -1;
  nlohmann::json toJSON() const;
};

/// The highest sample, plus the smaps_rollup taken closest below it.
struct TimelinePeak {
  bool valid = false; ///< false when there are no samples
  TimelineSample sample;
  std::optional<SmapsRollup> smaps;
  uint64_t smapsAtRSS = 0; ///< RSS of the sample that triggered the capture
  double smapsT = 0;
  nlohmann::json toJSON() const;
};

class TimelineSampler {
public:
  struct Options {
    /// Sampling period in milliseconds; must be >= 1.
    int intervalMs = 100;
    /// Process to watch; 0 = self.
    pid_t pid = 0;
    /// Capture smaps_rollup as the peak grows; SmapsPolicy says exactly
    /// when (these default to its values).
    bool smapsAtPeaks = true;
    uint64_t smapsMinGrowthBytes = SmapsPolicy().minGrowthBytes;
    double smapsMinGrowthFraction = SmapsPolicy().minGrowthFraction;
    double smapsBudget = SmapsPolicy().budget;
    /// Auto: Signal when sampling this process (and the signal is free),
    /// else Thread. Signal: that or an error.
    enum class Backend { Auto, Signal, Thread };
    Backend backend = Backend::Auto;
    /// Signal backend: samples buffered between two drains (stage
    /// boundaries, sampleNow()); past it only the highest is kept.
    size_t signalBufferSamples = size_t(1) << 20;
  };

  /// The real-time signal the signal backend uses (SIGRTMIN + 5).
  static int signalNumber();

  /// Rejects a non-positive interval. `phase` (may be null) must outlive the
  /// sampler.
  static llvm::Expected<std::unique_ptr<TimelineSampler>>
  create(const Options &options, const PhaseTracker *phase = nullptr);
  ~TimelineSampler(); // stops and joins

  /// Starts sampling (takes a first sample immediately). Error if already
  /// running or if /proc cannot be read. The signal backend samples the
  /// thread that calls start(), which must also call stop().
  llvm::Error start();
  /// Takes a last sample, stops (and joins). Idempotent.
  void stop();
  bool running() const { return thread.joinable() || sig != nullptr; }
  /// Takes one sample now from the calling thread (e.g. at a stage boundary).
  /// The thread backend hands a due smaps_rollup read to its thread.
  void sampleNow();
  /// "signal" or "thread"; why Auto did not pick the signal is in
  /// backendNote().
  llvm::StringRef backendName() const { return usedSignal ? "signal" : "thread"; }
  const std::string &backendNote() const { return note; }

  int intervalMs() const { return opts.intervalMs; }
  size_t sampleCount() const;
  std::vector<TimelineSample> samples() const;
  TimelinePeak peak() const;
  /// Highest sample with t in [t0, t1], if any.
  std::optional<TimelineSample> peakBetween(double t0, double t1) const;
  /// Set when sampling stopped on its own (e.g. the watched process exited).
  std::optional<std::string> error() const;

  /// {"interval_ms", "sample_count", "peak", "samples": [...]}.
  nlohmann::json toJSON(bool withSamples = true) const;
  /// Adds the samples as an "RSS" counter track (MB).
  void exportTrace(ChromeTrace &trace) const;

private:
  struct RawSample {
    double t;
    uint64_t rss;
    uint32_t stage, pass;
    int64_t record;
  };
  struct SignalState; // the signal backend's async-signal-safe buffer
  TimelineSampler(const Options &options, const PhaseTracker *phase);
  void run();
  /// False when the process cannot be read any more. `readSmaps`: read a due
  /// smaps_rollup here (else hand it to the thread); `final`: the last
  /// sample, which captures smaps if none was taken yet.
  bool takeSample(bool readSmaps, bool final = false);
  TimelineSample expand(const RawSample &raw) const;
  llvm::Error startSignal();
  void stopSignal();
  /// Moves the signal handler's samples into `raw` (signal backend).
  void drainSignal();
  /// `raw` plus samples the handler has not handed over yet, in time order.
  std::vector<RawSample> allSamples() const;
  static void onSignal(int);
  /// The one signal-backend sampler of the process (the handler's target).
  static std::atomic<SignalState *> activeSignal;

  Options opts;
  const PhaseTracker *phase;
  std::unique_ptr<RSSReader> rssReader;

  mutable std::mutex dataMutex; // guards everything below
  std::vector<RawSample> raw;
  uint64_t threadPeakRSS = 0; ///< thread backend: for the smaps policy
  SmapsPolicy policy; ///< thread backend (the signal one has its own)
  std::optional<SmapsRollup> peakSmaps;
  uint64_t smapsAtRSS = 0;
  double smapsT = 0;
  std::optional<std::string> failure;

  bool usedSignal = false;
  std::string note;
  std::unique_ptr<SignalState> sig;

  std::mutex stopMutex;
  std::condition_variable stopCV;
  bool stopRequested = false;
  bool smapsRequested = false; ///< a capture handed to the thread
  std::thread thread;
};

} // namespace q2::profiling

#endif // Q2_PROFILING_TIMELINE_H
