//===- Timing.h - Section timers and statistics -----------------*- C++ -*-===//
//
// Small timing helpers: a RAII section timer that reports wall and process
// CPU time, and an accumulator for repeated measurements (e.g. the per-call
// times of Phase C).
//
//===----------------------------------------------------------------------===//

#ifndef Q2_PROFILING_TIMING_H
#define Q2_PROFILING_TIMING_H

#include "q2/Profiling/Records.h"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace q2::profiling {

/// Wall and process-CPU seconds of one timed section.
struct TimingSample {
  double wallS = 0;
  double cpuS = 0;
};

class Stats;

/// Times from construction to stop() (or destruction) and delivers the result
/// exactly once to its sink: a callback, a TimingSample, or Stats.
class ScopedTimer {
public:
  using Callback = std::function<void(const TimingSample &)>;
  explicit ScopedTimer(Callback callback);
  explicit ScopedTimer(TimingSample &out);
  /// Adds wall seconds to `wall` and, if given, CPU seconds to `cpu`.
  explicit ScopedTimer(Stats &wall, Stats *cpu = nullptr);
  ~ScopedTimer();
  ScopedTimer(const ScopedTimer &) = delete;
  ScopedTimer &operator=(const ScopedTimer &) = delete;

  /// Time so far, without stopping.
  TimingSample elapsed() const;
  /// Stops and delivers; later calls (and the destructor) do nothing.
  TimingSample stop();

private:
  Callback sink;
  double wall0, cpu0;
  bool stopped = false;
};

/// Accumulates samples. Keeps every value so the median is exact; 8 bytes per
/// sample. All accessors return 0 when empty.
class Stats {
public:
  void add(double x);
  size_t count() const { return values.size(); }
  double total() const { return sum; }
  double mean() const;
  double min() const;
  double max() const;
  double median() const;
  /// Sample standard deviation (n - 1); 0 for fewer than two samples.
  double stddev() const;
  const std::vector<double> &samples() const { return values; }

  /// "n=5 total=14 mean=2.8 min=1 median=3 max=5" with values multiplied by
  /// `scale` and suffixed by `unit` (e.g. scale 1e3, unit "ms").
  std::string summary(double scale = 1.0, const std::string &unit = "") const;
  /// count, total, mean, min, median, max, stddev (what a report stores).
  StatsRecord record() const;

private:
  std::vector<double> values;
  double sum = 0;
};

} // namespace q2::profiling

#endif // Q2_PROFILING_TIMING_H
