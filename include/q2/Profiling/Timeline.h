//===- Timeline.h - RSS timeline sampler ------------------------*- C++ -*-===//
//
// Samples a process's RSS every N ms and tags each sample with the stage and
// pass running at that moment (published through a PhaseTracker). It keeps
// the peak sample and captures /proc/<pid>/smaps_rollup as the peak grows,
// so a report can say what the memory was made of at the peak and which pass
// was running.
//
// Two backends (docs/profiling-api.md has the measurements):
//  - signal: a POSIX timer interrupts the profiled thread, whose handler
//    reads /proc/self/statm (async-signal-safe, ~3 us). No second thread, so
//    glibc malloc stays on its single-thread fast path. Default for
//    self-sampling.
//  - thread: a sampler thread; needed to watch another process, and
//    available for hosts that cannot take a signal.
//
//===----------------------------------------------------------------------===//

#ifndef Q2_PROFILING_TIMELINE_H
#define Q2_PROFILING_TIMELINE_H

#include "q2/Profiling/Records.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace q2::profiling {

class ChromeTrace;

/// The "current stage / current pass", written by the thread running the
/// compiler and read by a sampler (a thread, or a signal handler on the
/// writer's thread, which reads it lock-free). Names are interned to small
/// ids so that a sample costs a few words, not two strings.
class PhaseTracker {
public:
  struct Phase {
    uint32_t stage = 0;  ///< interned id; 0 = none
    uint32_t pass = 0;   ///< interned id; 0 = none
    int64_t record = -1; ///< index of the pass in the session's records
    uint64_t generation = 0;
  };

  PhaseTracker();
  ~PhaseTracker();
  PhaseTracker(const PhaseTracker &) = delete;
  PhaseTracker &operator=(const PhaseTracker &) = delete;

  /// Sets the stage and clears the pass.
  void setStage(llvm::StringRef stage);
  void setPass(llvm::StringRef pass, int64_t record = -1);
  Phase current() const;
  /// The name for an id returned in a Phase ("" for 0 or unknown ids).
  std::string name(uint32_t id) const;
  /// Bumped on every change; lets a reader detect that the phase changed
  /// while it was measuring.
  uint64_t generation() const;
  /// Lock-free read for a signal handler running on the writer's thread:
  /// false when it interrupted a change (the fields are then unusable).
  bool tryCurrent(uint32_t &stage, uint32_t &pass, int64_t &record) const;

private:
  struct State;
  std::unique_ptr<State> state;
};

class TimelineSampler {
public:
  struct Options {
    /// Sampling period in milliseconds; must be >= 1.
    int intervalMs = 100;
    /// Process to watch; 0 = self.
    pid_t pid = 0;
    /// Capture smaps_rollup as the peak grows: when the RSS grew past the
    /// last capture by max(smapsMinGrowthBytes, smapsMinGrowthFraction of
    /// it), while near the peak, and while all reads together stay within
    /// smapsBudget of the elapsed time (each read walks every page table).
    bool smapsAtPeaks = true;
    uint64_t smapsMinGrowthBytes = 4u << 20;
    double smapsMinGrowthFraction = 0.05;
    double smapsBudget = 0.02;
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
  bool running() const;
  /// Takes one sample now from the calling thread (e.g. at a stage boundary).
  void sampleNow();
  /// "signal" or "thread"; why Auto did not pick the signal is in
  /// backendNote().
  llvm::StringRef backendName() const;
  const std::string &backendNote() const;

  int intervalMs() const;
  size_t sampleCount() const;
  std::vector<TimelineSample> samples() const;
  /// The highest sample (and the smaps capture), none without samples.
  std::optional<TimelinePeak> peak() const;
  /// Highest sample with t in [t0, t1], if any.
  std::optional<TimelineSample> peakBetween(double t0, double t1) const;
  /// Set when sampling stopped on its own (e.g. the watched process exited).
  std::optional<std::string> error() const;

  /// Everything above as a record (samples only when `withSamples`).
  TimelineRecord record(bool withSamples = true) const;
  /// Adds the samples as an "RSS" counter track (MB).
  void exportTrace(ChromeTrace &trace) const;

  struct Impl;

private:
  explicit TimelineSampler(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace q2::profiling

#endif // Q2_PROFILING_TIMELINE_H
