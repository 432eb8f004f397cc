//===- Timeline.h - RSS timeline sampler ------------------------*- C++ -*-===//
//
// A background thread that samples a process's RSS every N ms and tags each
// sample with the stage and pass running at that moment (published through a
// PhaseTracker by the instrumentation). It remembers the peak sample and
// captures /proc/<pid>/smaps_rollup as the peak grows, so a report can say
// what the memory was made of at the peak and which pass was running.
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
  uint64_t generation() const { return gen.load(std::memory_order_acquire); }

private:
  uint32_t intern(llvm::StringRef s); // requires `mutex` held
  mutable std::mutex mutex;
  std::vector<std::string> names;
  llvm::StringMap<uint32_t> ids;
  Phase cur;
  std::atomic<uint64_t> gen{0};
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
    /// Capture smaps_rollup whenever the peak grows by at least
    /// max(smapsMinGrowthBytes, smapsMinGrowthFraction * last capture).
    /// The thresholds bound the cost: reading smaps walks every mapping.
    bool smapsAtPeaks = true;
    uint64_t smapsMinGrowthBytes = 1 << 20;
    double smapsMinGrowthFraction = 0.05;
    /// After a capture that took d seconds, wait at least d * this before
    /// the next one (smaps costs ~15 ms per resident GB): bounds the share
    /// of time spent reading smaps to about 1 / (1 + this).
    double smapsBackoff = 10.0;
  };

  /// Rejects a non-positive interval. `phase` (may be null) must outlive the
  /// sampler.
  static llvm::Expected<std::unique_ptr<TimelineSampler>>
  create(const Options &options, const PhaseTracker *phase = nullptr);
  ~TimelineSampler(); // stops and joins

  /// Starts the thread (takes a first sample immediately). Error if already
  /// running or if /proc cannot be read.
  llvm::Error start();
  /// Takes a last sample, stops and joins. Idempotent.
  void stop();
  bool running() const { return thread.joinable(); }
  /// Takes one sample now from the calling thread (e.g. at a stage boundary).
  void sampleNow();

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
  TimelineSampler(const Options &options, const PhaseTracker *phase);
  void run();
  bool takeSample(); // false when the process cannot be read any more
  TimelineSample expand(const RawSample &raw) const;

  Options opts;
  const PhaseTracker *phase;
  std::unique_ptr<RSSReader> rssReader;

  mutable std::mutex dataMutex; // guards everything below
  std::vector<RawSample> raw;
  size_t peakIndex = 0;
  std::optional<SmapsRollup> peakSmaps;
  uint64_t smapsAtRSS = 0;
  double smapsT = 0;
  double smapsNextAllowed = 0; ///< epoch seconds
  std::optional<std::string> failure;

  std::mutex stopMutex;
  std::condition_variable stopCV;
  bool stopRequested = false;
  std::thread thread;
};

} // namespace q2::profiling

#endif // Q2_PROFILING_TIMELINE_H
