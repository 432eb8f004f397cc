//===- TimelineImpl.h - Timeline sampler internals (private) ----*- C++ -*-===//
//
// The sampler's state: the smaps policy, the signal backend's buffer and the
// sampler thread. Private to lib/Profiling (tests include it to check the
// policy); the public API is q2/Profiling/Timeline.h.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_LIB_PROFILING_TIMELINEIMPL_H
#define Q2_LIB_PROFILING_TIMELINEIMPL_H

#include "q2/Profiling/Timeline.h"

#include "llvm/ADT/StringMap.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace q2::profiling {

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

struct PhaseTracker::State {
  uint32_t intern(llvm::StringRef s); // requires `mutex` held
  uint64_t publish(); // requires `mutex` held; returns the new generation
  mutable std::mutex mutex;
  std::vector<std::string> names;
  llvm::StringMap<uint32_t> ids;
  Phase cur;
  // Copy of `cur` under a sequence lock (odd while written, +2 per change:
  // generation() is half of it), for tryCurrent.
  std::atomic<uint64_t> seq{0};
  std::atomic<uint32_t> aStage{0}, aPass{0};
  std::atomic<int64_t> aRecord{-1};
};

struct TimelineSampler::Impl {
  using Options = TimelineSampler::Options;
  struct RawSample {
    double t;
    uint64_t rss;
    uint32_t stage, pass;
    int64_t record;
  };
  struct SignalState; // the signal backend's async-signal-safe buffer

  Impl(const Options &options, const PhaseTracker *phase);
  ~Impl();
  llvm::Error start();
  void stop();
  bool running() const { return thread.joinable() || sig != nullptr; }
  void sampleNow();
  size_t sampleCount() const;
  std::vector<TimelineSample> samples() const;
  std::optional<TimelinePeak> peak() const;
  std::optional<TimelineSample> peakBetween(double t0, double t1) const;
  std::optional<std::string> error() const;

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

#endif // Q2_LIB_PROFILING_TIMELINEIMPL_H
