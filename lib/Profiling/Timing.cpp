//===- Timing.cpp - Section timers and statistics -------------------------===//

#include "q2/Profiling/Timing.h"
#include "q2/Profiling/Memory.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace q2::profiling;

ScopedTimer::ScopedTimer(Callback callback)
    : sink(std::move(callback)), wall0(elapsedSeconds()),
      cpu0(processCPUSeconds()) {}

ScopedTimer::ScopedTimer(TimingSample &out)
    : ScopedTimer([&out](const TimingSample &s) { out = s; }) {}

ScopedTimer::ScopedTimer(Stats &wall, Stats *cpu)
    : ScopedTimer([&wall, cpu](const TimingSample &s) {
        wall.add(s.wallS);
        if (cpu)
          cpu->add(s.cpuS);
      }) {}

ScopedTimer::~ScopedTimer() { stop(); }

TimingSample ScopedTimer::elapsed() const {
  return {elapsedSeconds() - wall0, processCPUSeconds() - cpu0};
}

TimingSample ScopedTimer::stop() {
  TimingSample s = elapsed();
  if (stopped)
    return s;
  stopped = true;
  if (sink)
    sink(s);
  return s;
}

void Stats::add(double x) {
  values.push_back(x);
  sum += x;
}

double Stats::mean() const { return values.empty() ? 0 : sum / values.size(); }

double Stats::min() const {
  return values.empty() ? 0 : *std::min_element(values.begin(), values.end());
}

double Stats::max() const {
  return values.empty() ? 0 : *std::max_element(values.begin(), values.end());
}

double Stats::median() const {
  if (values.empty())
    return 0;
  std::vector<double> v = values;
  size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  if (v.size() % 2)
    return v[mid];
  double hi = v[mid];
  double lo = *std::max_element(v.begin(), v.begin() + mid);
  return (lo + hi) / 2;
}

double Stats::stddev() const {
  if (values.size() < 2)
    return 0;
  double m = mean(), acc = 0;
  for (double x : values)
    acc += (x - m) * (x - m);
  return std::sqrt(acc / double(values.size() - 1));
}

std::string Stats::summary(double scale, const std::string &unit) const {
  char buf[256];
  auto f = [&](double x) { return x * scale; };
  const char *u = unit.c_str();
  std::snprintf(buf, sizeof(buf),
                "n=%zu total=%.6g%s mean=%.6g%s min=%.6g%s median=%.6g%s "
                "max=%.6g%s",
                count(), f(total()), u, f(mean()), u, f(min()), u, f(median()),
                u, f(max()), u);
  return buf;
}

StatsRecord Stats::record() const {
  StatsRecord r;
  r.count = count();
  r.total = total();
  r.mean = mean();
  r.min = min();
  r.median = median();
  r.max = max();
  r.stddev = stddev();
  return r;
}
