//===- Timeline.cpp - RSS timeline sampler --------------------------------===//

#include "q2/Profiling/Timeline.h"
#include "q2/Profiling/ChromeTrace.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

using namespace q2::profiling;

//===----------------------------------------------------------------------===//
// PhaseTracker
//===----------------------------------------------------------------------===//

PhaseTracker::PhaseTracker() { names.push_back(""); }

uint32_t PhaseTracker::intern(llvm::StringRef s) {
  if (s.empty())
    return 0;
  auto [it, inserted] = ids.try_emplace(s, uint32_t(names.size()));
  if (inserted)
    names.push_back(s.str());
  return it->second;
}

void PhaseTracker::setStage(llvm::StringRef stage) {
  std::lock_guard<std::mutex> lock(mutex);
  cur.stage = intern(stage);
  cur.pass = 0;
  cur.record = -1;
  cur.generation = gen.fetch_add(1, std::memory_order_acq_rel) + 1;
}

void PhaseTracker::setPass(llvm::StringRef pass, int64_t record) {
  std::lock_guard<std::mutex> lock(mutex);
  cur.pass = intern(pass);
  cur.record = record;
  cur.generation = gen.fetch_add(1, std::memory_order_acq_rel) + 1;
}

PhaseTracker::Phase PhaseTracker::current() const {
  std::lock_guard<std::mutex> lock(mutex);
  return cur;
}

std::string PhaseTracker::name(uint32_t id) const {
  std::lock_guard<std::mutex> lock(mutex);
  return id < names.size() ? names[id] : std::string();
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

nlohmann::json TimelineSample::toJSON() const {
  nlohmann::json j = {
      {"t_s", t}, {"rss_bytes", rss}, {"stage", stage}, {"pass", pass}};
  if (passRecord >= 0)
    j["pass_record"] = passRecord;
  return j;
}

nlohmann::json TimelinePeak::toJSON() const {
  if (!valid)
    return nullptr;
  nlohmann::json j = sample.toJSON();
  if (smaps) {
    j["smaps_rollup"] = q2::profiling::toJSON(*smaps);
    j["smaps_at_rss_bytes"] = smapsAtRSS;
    j["smaps_t_s"] = smapsT;
  }
  return j;
}

//===----------------------------------------------------------------------===//
// TimelineSampler
//===----------------------------------------------------------------------===//

llvm::Expected<std::unique_ptr<TimelineSampler>>
TimelineSampler::create(const Options &options, const PhaseTracker *phase) {
  if (options.intervalMs <= 0)
    return llvm::createStringError(
        "timeline interval must be a positive number of milliseconds (got " +
        std::to_string(options.intervalMs) + ")");
  if (options.smapsMinGrowthFraction < 0 || options.smapsBackoff < 0)
    return llvm::createStringError(
        "smaps growth fraction and backoff must be >= 0");
  return std::unique_ptr<TimelineSampler>(new TimelineSampler(options, phase));
}

TimelineSampler::TimelineSampler(const Options &options,
                                 const PhaseTracker *phase)
    : opts(options), phase(phase) {
  raw.reserve(4096);
}

TimelineSampler::~TimelineSampler() { stop(); }

llvm::Error TimelineSampler::start() {
  if (thread.joinable())
    return llvm::createStringError("timeline sampler is already running");
  if (!rssReader) {
    // Kept open: saves an open/close per sample at 1 ms intervals.
    auto reader = std::make_unique<RSSReader>(opts.pid);
    if (auto rss = reader->read(); !rss)
      return rss.takeError();
    rssReader = std::move(reader);
  }
  {
    std::lock_guard<std::mutex> lock(stopMutex);
    stopRequested = false;
  }
  {
    std::lock_guard<std::mutex> lock(dataMutex);
    failure.reset();
  }
  if (!takeSample())
    return llvm::createStringError(*error());
  try {
    thread = std::thread([this] { run(); });
  } catch (const std::system_error &e) {
    return llvm::createStringError(std::string("cannot start sampler: ") +
                                   e.what());
  }
  return llvm::Error::success();
}

void TimelineSampler::stop() {
  if (!thread.joinable())
    return;
  {
    std::lock_guard<std::mutex> lock(stopMutex);
    stopRequested = true;
  }
  stopCV.notify_all();
  thread.join();
  // A final point so the timeline extends to the end of the profiled work.
  takeSample();
}

void TimelineSampler::run() {
  using clock = std::chrono::steady_clock;
  const auto period = std::chrono::milliseconds(opts.intervalMs);
  auto next = clock::now() + period;
  std::unique_lock<std::mutex> lock(stopMutex);
  while (!stopRequested) {
    if (stopCV.wait_until(lock, next, [this] { return stopRequested; }))
      break;
    lock.unlock();
    bool ok = takeSample();
    lock.lock();
    if (!ok)
      break;
    // Fixed-rate schedule; if we fell behind (a slow smaps read), skip the
    // missed ticks instead of sampling in a burst.
    next += period;
    auto now = clock::now();
    if (next < now)
      next = now + period;
  }
}

void TimelineSampler::sampleNow() { takeSample(); }

bool TimelineSampler::takeSample() {
  if (!rssReader)
    return false;
  RawSample s{};
  // Read the phase generation before and after the RSS so the sample is
  // attributed to a phase that was current during the whole measurement.
  PhaseTracker::Phase ph;
  for (int attempt = 0;; ++attempt) {
    uint64_t g0 = phase ? phase->generation() : 0;
    auto rss = rssReader->read();
    if (!rss) {
      std::string msg = llvm::toString(rss.takeError());
      std::lock_guard<std::mutex> lock(dataMutex);
      failure = "sampling stopped: " + msg;
      return false;
    }
    s.rss = *rss;
    s.t = elapsedSeconds();
    if (!phase)
      break;
    ph = phase->current();
    if (ph.generation == g0 || attempt == 2)
      break;
  }
  if (phase) {
    s.stage = ph.stage;
    s.pass = ph.pass;
    s.record = ph.record;
  }

  bool captureSmaps = false;
  {
    std::lock_guard<std::mutex> lock(dataMutex);
    raw.push_back(s);
    if (raw.size() == 1 || s.rss > raw[peakIndex].rss)
      peakIndex = raw.size() - 1;
    if (opts.smapsAtPeaks) {
      // Capture near the peak once it has grown past the last capture; not
      // only on a new maximum, so a plateau reached during a back-off is
      // still captured once the back-off ends.
      uint64_t threshold = std::max<uint64_t>(
          opts.smapsMinGrowthBytes,
          uint64_t(opts.smapsMinGrowthFraction * double(smapsAtRSS)));
      bool nearPeak = s.rss + threshold > raw[peakIndex].rss;
      captureSmaps =
          !peakSmaps || (nearPeak && s.rss >= smapsAtRSS + threshold &&
                         s.t >= smapsNextAllowed);
    }
  }
  if (captureSmaps) {
    double c0 = elapsedSeconds();
    auto smaps = readSmapsRollup(opts.pid);
    double c1 = elapsedSeconds();
    if (smaps) {
      std::lock_guard<std::mutex> lock(dataMutex);
      smapsNextAllowed = c1 + (c1 - c0) * opts.smapsBackoff;
      if (!peakSmaps || s.rss > smapsAtRSS) {
        peakSmaps = std::move(*smaps);
        smapsAtRSS = s.rss;
        smapsT = s.t;
      }
    } else {
      llvm::consumeError(smaps.takeError());
    }
  }
  return true;
}

TimelineSample TimelineSampler::expand(const RawSample &r) const {
  TimelineSample s;
  s.t = r.t;
  s.rss = r.rss;
  s.passRecord = r.record;
  if (phase) {
    s.stage = phase->name(r.stage);
    s.pass = phase->name(r.pass);
  }
  return s;
}

size_t TimelineSampler::sampleCount() const {
  std::lock_guard<std::mutex> lock(dataMutex);
  return raw.size();
}

std::vector<TimelineSample> TimelineSampler::samples() const {
  std::vector<RawSample> copy;
  {
    std::lock_guard<std::mutex> lock(dataMutex);
    copy = raw;
  }
  std::vector<TimelineSample> out;
  out.reserve(copy.size());
  for (const RawSample &r : copy)
    out.push_back(expand(r));
  return out;
}

TimelinePeak TimelineSampler::peak() const {
  TimelinePeak p;
  RawSample r;
  {
    std::lock_guard<std::mutex> lock(dataMutex);
    if (raw.empty())
      return p;
    r = raw[peakIndex];
    p.smaps = peakSmaps;
    p.smapsAtRSS = smapsAtRSS;
    p.smapsT = smapsT;
  }
  p.valid = true;
  p.sample = expand(r);
  return p;
}

std::optional<TimelineSample> TimelineSampler::peakBetween(double t0,
                                                           double t1) const {
  std::optional<RawSample> best;
  {
    std::lock_guard<std::mutex> lock(dataMutex);
    for (const RawSample &r : raw)
      if (r.t >= t0 && r.t <= t1 && (!best || r.rss > best->rss))
        best = r;
  }
  if (!best)
    return std::nullopt;
  return expand(*best);
}

std::optional<std::string> TimelineSampler::error() const {
  std::lock_guard<std::mutex> lock(dataMutex);
  return failure;
}

nlohmann::json TimelineSampler::toJSON(bool withSamples) const {
  nlohmann::json j = {{"interval_ms", opts.intervalMs},
                      {"sample_count", sampleCount()},
                      {"peak", peak().toJSON()}};
  if (auto e = error())
    j["error"] = *e;
  if (withSamples) {
    nlohmann::json arr = nlohmann::json::array();
    for (const TimelineSample &s : samples())
      arr.push_back(s.toJSON());
    j["samples"] = std::move(arr);
  }
  return j;
}

void TimelineSampler::exportTrace(ChromeTrace &trace) const {
  for (const TimelineSample &s : samples())
    trace.addCounter("RSS", s.t, {{"rss_mb", double(s.rss) / (1 << 20)}});
}
