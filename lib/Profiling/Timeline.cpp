//===- Timeline.cpp - RSS timeline sampler --------------------------------===//

#include "TimelineImpl.h"
#include "q2/Profiling/ChromeTrace.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

using namespace q2::profiling;

//===----------------------------------------------------------------------===//
// PhaseTracker
//===----------------------------------------------------------------------===//

PhaseTracker::PhaseTracker() : state(std::make_unique<State>()) {
  state->names.push_back("");
}

PhaseTracker::~PhaseTracker() = default;

uint32_t PhaseTracker::State::intern(llvm::StringRef s) {
  if (s.empty())
    return 0;
  auto [it, inserted] = ids.try_emplace(s, uint32_t(names.size()));
  if (inserted)
    names.push_back(s.str());
  return it->second;
}

void PhaseTracker::setStage(llvm::StringRef stage) {
  std::lock_guard<std::mutex> lock(state->mutex);
  state->cur.stage = state->intern(stage);
  state->cur.pass = 0;
  state->cur.record = -1;
  state->cur.generation = state->publish();
}

void PhaseTracker::setPass(llvm::StringRef pass, int64_t record) {
  std::lock_guard<std::mutex> lock(state->mutex);
  state->cur.pass = state->intern(pass);
  state->cur.record = record;
  state->cur.generation = state->publish();
}

uint64_t PhaseTracker::State::publish() {
  uint64_t s = seq.load(std::memory_order_relaxed);
  seq.store(s + 1, std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  aStage.store(cur.stage, std::memory_order_relaxed);
  aPass.store(cur.pass, std::memory_order_relaxed);
  aRecord.store(cur.record, std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  seq.store(s + 2, std::memory_order_release);
  return (s + 2) / 2;
}

uint64_t PhaseTracker::generation() const {
  return state->seq.load(std::memory_order_acquire) / 2; // odd: in progress
}

bool PhaseTracker::tryCurrent(uint32_t &stage, uint32_t &pass,
                              int64_t &record) const {
  const State &st = *state;
  uint64_t s0 = st.seq.load(std::memory_order_acquire);
  if (s0 & 1)
    return false;
  stage = st.aStage.load(std::memory_order_relaxed);
  pass = st.aPass.load(std::memory_order_relaxed);
  record = st.aRecord.load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  return st.seq.load(std::memory_order_relaxed) == s0;
}

PhaseTracker::Phase PhaseTracker::current() const {
  std::lock_guard<std::mutex> lock(state->mutex);
  return state->cur;
}

std::string PhaseTracker::name(uint32_t id) const {
  std::lock_guard<std::mutex> lock(state->mutex);
  return id < state->names.size() ? state->names[id] : std::string();
}

//===----------------------------------------------------------------------===//
// Signal backend
//===----------------------------------------------------------------------===//

namespace {
/// Deleter of a buffer from mmap.
struct UnmapBuffer {
  size_t bytes = 0;
  void operator()(void *p) const {
    if (p)
      ::munmap(p, bytes);
  }
};
} // namespace

/// Everything the signal handler touches: preallocated, no locks, no
/// allocation. `busy` is the only synchronisation: whoever sets it (the
/// handler, or the owning code draining or sampling) has the buffer; a
/// handler that finds it set skips that tick.
struct TimelineSampler::Impl::SignalState {
  std::atomic<bool> busy{false};
  const PhaseTracker *phase = nullptr;
  int statmFd = -1;
  bool smapsAtPeaks = true;
  SmapsPolicy policy;

  /// Mapped outside malloc: the profiler's own buffer must not count as the
  /// program's heap (mallinfo2 counts malloc's mmapped chunks).
  std::unique_ptr<RawSample[], UnmapBuffer> buf; ///< handed to `raw` at every drain
  size_t cap = 0, count = 0;
  uint64_t dropped = 0, skipped = 0; ///< buffer full / buffer busy
  RawSample droppedMax{};
  uint64_t peakRSS = 0;
  uint32_t lastStage = 0, lastPass = 0;
  int64_t lastRecord = -1;
  bool readFailed = false;

  // The highest smaps capture, raw text (parsed outside the handler).
  char smapsText[8192];
  size_t smapsLen = 0;
  uint64_t smapsAtRSS = 0;
  double smapsT = 0;

  timer_t timer{};
  bool timerCreated = false;
  struct sigaction oldAction {};

  /// Reads RSS without allocating (not RSSReader::read: its Expected
  /// allocates on errors), for the handler.
  bool readRSS(uint64_t &rss) const {
    char b[128];
    ssize_t n;
    do
      n = ::pread(statmFd, b, sizeof(b), 0);
    while (n < 0 && errno == EINTR);
    if (n <= 0)
      return false;
    std::optional<uint64_t> r = parseStatmRSS(llvm::StringRef(b, size_t(n)));
    if (r)
      rss = *r;
    return r.has_value();
  }

  /// One sample into `buf`; runs in the handler or with `busy` held.
  void sample(bool final) {
    RawSample s{};
    if (!readRSS(s.rss)) {
      readFailed = true;
      return;
    }
    s.t = elapsedSeconds();
    s.stage = lastStage;
    s.pass = lastPass;
    s.record = lastRecord;
    // A tick that interrupted a phase change keeps the previous tags.
    if (phase && phase->tryCurrent(s.stage, s.pass, s.record)) {
      lastStage = s.stage;
      lastPass = s.pass;
      lastRecord = s.record;
    } else if (phase) {
      s.stage = lastStage;
      s.pass = lastPass;
      s.record = lastRecord;
    }
    if (count < cap) {
      buf[count++] = s;
    } else {
      ++dropped;
      if (s.rss > droppedMax.rss)
        droppedMax = s;
    }
    peakRSS = std::max(peakRSS, s.rss);
    policy.noteFirst(s.rss, s.t);
    if (smapsAtPeaks && (final ? policy.dueAtEnd(s.rss, peakRSS)
                               : policy.due(s.rss, peakRSS, s.t)))
      captureSmaps(s);
  }

  /// Reads smaps_rollup into `out`; returns the length (0 on failure).
  /// Not readSmapsRollup(): that allocates, and this runs in the handler.
  static size_t readSmapsText(char *out, size_t cap) {
    int fd = ::open("/proc/self/smaps_rollup", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return 0;
    size_t len = 0;
    while (len < cap) {
      ssize_t n = ::read(fd, out + len, cap - len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      len += size_t(n);
    }
    ::close(fd);
    return len;
  }

  void keepCapture(const RawSample &s, const char *text, size_t len,
                   double c0, double c1) {
    if (len == 0 || !policy.captured(s.rss, c0, c1))
      return;
    std::memcpy(smapsText, text, len);
    smapsLen = len;
    smapsAtRSS = s.rss;
    smapsT = s.t;
  }

  // Read here, on the compiler's thread: handing it to a task on another
  // CPU (clone(CLONE_VM)) was measured slower on a 2-vCPU VM.
  void captureSmaps(const RawSample &s) {
    char tmp[sizeof(smapsText)];
    double c0 = elapsedSeconds();
    size_t len = readSmapsText(tmp, sizeof(tmp));
    keepCapture(s, tmp, len, c0, elapsedSeconds());
  }

  void lock() {
    while (busy.exchange(true, std::memory_order_acquire))
      ::sched_yield(); // only another thread's handler can hold it
  }
  void unlock() { busy.store(false, std::memory_order_release); }
};

std::atomic<TimelineSampler::Impl::SignalState *>
    TimelineSampler::Impl::activeSignal{
    nullptr};

void TimelineSampler::Impl::onSignal(int) {
  int savedErrno = errno;
  SignalState *st = activeSignal.load(std::memory_order_acquire);
  if (st) {
    if (!st->busy.exchange(true, std::memory_order_acquire)) {
      st->sample(/*final=*/false);
      st->busy.store(false, std::memory_order_release);
    } else {
      ++st->skipped; // racy count; only informative
    }
  }
  errno = savedErrno;
}

llvm::Error TimelineSampler::Impl::startSignal() {
  if (opts.pid != 0)
    return llvm::createStringError("a signal samples only this process");
  const int signo = signalNumber();
  auto st = std::make_unique<SignalState>();
  st->phase = phase;
  st->smapsAtPeaks = opts.smapsAtPeaks;
  st->policy = policy;
  // Drained at every stage boundary; past this many samples in between
  // (2^20 by default: 17 min at 1 ms, e.g. a long Phase C) only the highest
  // is kept. 32 MB of address space: only pages written become resident.
  st->cap = std::max<size_t>(1, opts.signalBufferSamples);
  {
    size_t bytes = st->cap * sizeof(RawSample);
    void *p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      return llvm::createStringError(
          std::error_code(errno, std::generic_category()),
          "timeline buffer: " + std::string(std::strerror(errno)));
    st->buf = std::unique_ptr<RawSample[], UnmapBuffer>(
        static_cast<RawSample *>(p), UnmapBuffer{bytes});
  }
  st->statmFd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (st->statmFd < 0)
    return llvm::createStringError(
        std::error_code(errno, std::generic_category()),
        "/proc/self/statm: " + std::string(std::strerror(errno)));
  auto fail = [&](const llvm::Twine &what) {
    int err = errno;
    ::close(st->statmFd);
    return llvm::createStringError(std::error_code(err, std::generic_category()),
                                   what + ": " + std::strerror(err));
  };

  SignalState *expected = nullptr;
  if (!activeSignal.compare_exchange_strong(expected, st.get())) {
    ::close(st->statmFd);
    return llvm::createStringError("another timeline already uses the signal");
  }
  struct sigaction sa {};
  sa.sa_handler = &TimelineSampler::Impl::onSignal;
  sigemptyset(&sa.sa_mask);
  // Interrupted system calls restart, so the compiler never sees EINTR
  // from a tick (except in calls that never restart, e.g. nanosleep).
  sa.sa_flags = SA_RESTART;
  if (::sigaction(signo, nullptr, &st->oldAction) != 0 ||
      st->oldAction.sa_handler != SIG_DFL) {
    activeSignal.store(nullptr);
    if (st->oldAction.sa_handler != SIG_DFL)
      errno = EBUSY;
    return fail("real-time signal " + llvm::Twine(signo) + " is in use");
  }
  if (::sigaction(signo, &sa, nullptr) != 0) {
    activeSignal.store(nullptr);
    return fail("sigaction");
  }
  // Delivered to this thread (the one running the compiler), not to any.
  sigevent sev {};
  sev.sigev_notify = SIGEV_THREAD_ID;
  sev.sigev_signo = signo;
  sev._sigev_un._tid = pid_t(::syscall(SYS_gettid));
  if (::timer_create(CLOCK_MONOTONIC, &sev, &st->timer) != 0) {
    ::sigaction(signo, &st->oldAction, nullptr);
    activeSignal.store(nullptr);
    return fail("timer_create");
  }
  st->timerCreated = true;
  itimerspec its {};
  its.it_interval.tv_sec = opts.intervalMs / 1000;
  its.it_interval.tv_nsec = long(opts.intervalMs % 1000) * 1000000L;
  its.it_value = its.it_interval;
  sig = std::move(st);
  if (::timer_settime(sig->timer, 0, &its, nullptr) != 0) {
    auto err = fail("timer_settime");
    stopSignal();
    return err;
  }
  usedSignal = true;
  return llvm::Error::success();
}

void TimelineSampler::Impl::drainSignal() {
  if (!sig)
    return;
  sig->lock();
  std::lock_guard<std::mutex> lock(dataMutex);
  raw.insert(raw.end(), sig->buf.get(), sig->buf.get() + sig->count);
  sig->count = 0;
  if (sig->readFailed && !failure)
    failure = "sampling stopped: /proc/self/statm cannot be read";
  sig->unlock();
}

void TimelineSampler::Impl::stopSignal() {
  if (!sig)
    return;
  const int signo = signalNumber();
  if (sig->timerCreated)
    ::timer_delete(sig->timer);
  // SIG_IGN discards a tick still pending, which the restored default
  // action would otherwise turn into process termination.
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  ::sigaction(signo, &ign, nullptr);
  ::sigaction(signo, &sig->oldAction, nullptr);
  activeSignal.store(nullptr, std::memory_order_release);
  // The last sample (and a capture if there is none yet), then hand over.
  sig->lock();
  sig->sample(/*final=*/true);
  sig->unlock();
  drainSignal();
  std::lock_guard<std::mutex> lock(dataMutex);
  if (sig->dropped) {
    raw.push_back(sig->droppedMax);
    std::stable_sort(raw.begin(), raw.end(),
                     [](const RawSample &a, const RawSample &b) { return a.t < b.t; });
    note = std::to_string(sig->dropped) +
           " samples between two stage boundaries exceeded the buffer; the "
           "highest was kept";
  }
  if (sig->smapsLen && (!peakSmaps || sig->smapsAtRSS > smapsAtRSS)) {
    peakSmaps = parseSmapsRollup(llvm::StringRef(sig->smapsText, sig->smapsLen));
    smapsAtRSS = sig->smapsAtRSS;
    smapsT = sig->smapsT;
  }
  ::close(sig->statmFd);
  sig.reset();
}

std::vector<TimelineSampler::Impl::RawSample>
TimelineSampler::Impl::allSamples() const {
  // Same order as drainSignal(): the handler's buffer, then dataMutex.
  if (sig)
    sig->lock();
  std::vector<RawSample> all;
  {
    std::lock_guard<std::mutex> lock(dataMutex);
    all = raw;
  }
  if (sig) {
    all.insert(all.end(), sig->buf.get(), sig->buf.get() + sig->count);
    sig->unlock();
  }
  return all;
}

//===----------------------------------------------------------------------===//
// TimelineSampler
//===----------------------------------------------------------------------===//

llvm::Expected<std::unique_ptr<TimelineSampler>>
TimelineSampler::create(const Options &options, const PhaseTracker *phase) {
  if (options.intervalMs <= 0)
    return llvm::createStringError(
        std::make_error_code(std::errc::invalid_argument),
        "timeline interval must be a positive number of milliseconds (got " +
        std::to_string(options.intervalMs) + ")");
  if (options.smapsMinGrowthFraction < 0 || options.smapsBudget < 0)
    return llvm::createStringError(
        std::make_error_code(std::errc::invalid_argument),
        "smaps growth fraction and budget must be >= 0");
  return std::unique_ptr<TimelineSampler>(
      new TimelineSampler(std::make_unique<Impl>(options, phase)));
}

TimelineSampler::TimelineSampler(std::unique_ptr<Impl> impl)
    : impl(std::move(impl)) {}

TimelineSampler::~TimelineSampler() { stop(); }

TimelineSampler::Impl::Impl(const Options &options, const PhaseTracker *phase)
    : opts(options), phase(phase) {
  raw.reserve(4096);
  policy.minGrowthBytes = opts.smapsMinGrowthBytes;
  policy.minGrowthFraction = opts.smapsMinGrowthFraction;
  policy.budget = opts.smapsBudget;
}

TimelineSampler::Impl::~Impl() { stop(); }

llvm::Error TimelineSampler::Impl::start() {
  if (running())
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
    smapsRequested = false;
  }
  {
    std::lock_guard<std::mutex> lock(dataMutex);
    failure.reset();
  }
  usedSignal = false;
  if (opts.backend != Options::Backend::Thread) {
    llvm::Error err = startSignal();
    if (!err)
      return takeSample(/*readSmaps=*/true)
                 ? llvm::Error::success()
                 : llvm::createStringError(error().value_or("cannot sample"));
    if (opts.backend == Options::Backend::Signal)
      return err;
    if (opts.pid == 0)
      note = "sampler thread used: " + llvm::toString(std::move(err));
    else
      llvm::consumeError(std::move(err));
  }
  if (!takeSample(/*readSmaps=*/false))
    return llvm::createStringError(*error());
  try {
    thread = std::thread([this] { run(); });
  } catch (const std::system_error &e) {
    return llvm::createStringError(std::string("cannot start sampler: ") +
                                   e.what());
  }
  return llvm::Error::success();
}

void TimelineSampler::Impl::stop() {
  if (sig) {
    stopSignal();
    return;
  }
  if (!thread.joinable())
    return;
  {
    std::lock_guard<std::mutex> lock(stopMutex);
    stopRequested = true;
  }
  stopCV.notify_all();
  thread.join();
  // A final point so the timeline extends to the end of the profiled work;
  // no thread is left to hand a capture to, so it is read here.
  takeSample(/*readSmaps=*/true, /*final=*/true);
}

void TimelineSampler::Impl::run() {
  using clock = std::chrono::steady_clock;
  const auto period = std::chrono::milliseconds(opts.intervalMs);
  auto next = clock::now() + period;
  std::unique_lock<std::mutex> lock(stopMutex);
  while (!stopRequested) {
    if (stopCV.wait_until(lock, next,
                          [this] { return stopRequested || smapsRequested; })) {
      if (stopRequested)
        break;
      // A capture handed over by sampleNow(): off the schedule.
      smapsRequested = false;
      lock.unlock();
      bool ok = takeSample(/*readSmaps=*/true);
      lock.lock();
      if (!ok)
        break;
      continue;
    }
    lock.unlock();
    bool ok = takeSample(/*readSmaps=*/true);
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

void TimelineSampler::Impl::sampleNow() {
  takeSample(/*readSmaps=*/!thread.joinable());
}

bool TimelineSampler::Impl::takeSample(bool readSmaps, bool final) {
  if (sig) {
    // Same path as a tick, then hand the buffer over.
    sig->lock();
    sig->sample(final);
    bool ok = !sig->readFailed;
    sig->unlock();
    drainSignal();
    return ok;
  }
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
    threadPeakRSS = std::max(threadPeakRSS, s.rss);
    policy.noteFirst(s.rss, s.t);
    captureSmaps = opts.smapsAtPeaks &&
                   (final ? policy.dueAtEnd(s.rss, threadPeakRSS)
                          : policy.due(s.rss, threadPeakRSS, s.t));
  }
  if (captureSmaps && !readSmaps) {
    {
      std::lock_guard<std::mutex> lock(stopMutex);
      smapsRequested = true;
    }
    stopCV.notify_all();
    return true;
  }
  if (captureSmaps) {
    double c0 = elapsedSeconds();
    auto smaps = readSmapsRollup(opts.pid);
    double c1 = elapsedSeconds();
    if (smaps) {
      std::lock_guard<std::mutex> lock(dataMutex);
      if (policy.captured(s.rss, c0, c1) || !peakSmaps) {
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

TimelineSample TimelineSampler::Impl::expand(const RawSample &r) const {
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

size_t TimelineSampler::Impl::sampleCount() const {
  if (sig)
    sig->lock();
  size_t n;
  {
    std::lock_guard<std::mutex> lock(dataMutex);
    n = raw.size();
  }
  if (sig) {
    n += sig->count;
    sig->unlock();
  }
  return n;
}

std::vector<TimelineSample> TimelineSampler::Impl::samples() const {
  std::vector<RawSample> copy = allSamples();
  std::vector<TimelineSample> out;
  out.reserve(copy.size());
  for (const RawSample &r : copy)
    out.push_back(expand(r));
  return out;
}

std::optional<TimelinePeak> TimelineSampler::Impl::peak() const {
  TimelinePeak p;
  std::vector<RawSample> all = allSamples();
  if (all.empty())
    return std::nullopt;
  RawSample r = *std::max_element(
      all.begin(), all.end(),
      [](const RawSample &a, const RawSample &b) { return a.rss < b.rss; });
  {
    std::lock_guard<std::mutex> lock(dataMutex);
    p.smaps = peakSmaps;
    p.smapsAtRSS = smapsAtRSS;
    p.smapsT = smapsT;
  }
  if (sig) {
    // A capture the handler took that has not been handed over yet.
    sig->lock();
    if (sig->smapsLen && (!p.smaps || sig->smapsAtRSS > p.smapsAtRSS)) {
      p.smaps = parseSmapsRollup(llvm::StringRef(sig->smapsText, sig->smapsLen));
      p.smapsAtRSS = sig->smapsAtRSS;
      p.smapsT = sig->smapsT;
    }
    sig->unlock();
  }
  p.sample = expand(r);
  return p;
}

std::optional<TimelineSample> TimelineSampler::Impl::peakBetween(double t0,
                                                           double t1) const {
  std::optional<RawSample> best;
  for (const RawSample &r : allSamples())
    if (r.t >= t0 && r.t <= t1 && (!best || r.rss > best->rss))
      best = r;
  if (!best)
    return std::nullopt;
  return expand(*best);
}

std::optional<std::string> TimelineSampler::Impl::error() const {
  std::lock_guard<std::mutex> lock(dataMutex);
  return failure;
}

//===----------------------------------------------------------------------===//
// Public interface
//===----------------------------------------------------------------------===//

int TimelineSampler::signalNumber() { return SIGRTMIN + 5; }
llvm::Error TimelineSampler::start() { return impl->start(); }
void TimelineSampler::stop() { impl->stop(); }
bool TimelineSampler::running() const { return impl->running(); }
void TimelineSampler::sampleNow() { impl->sampleNow(); }
llvm::StringRef TimelineSampler::backendName() const {
  return impl->usedSignal ? "signal" : "thread";
}
const std::string &TimelineSampler::backendNote() const { return impl->note; }
int TimelineSampler::intervalMs() const { return impl->opts.intervalMs; }
size_t TimelineSampler::sampleCount() const { return impl->sampleCount(); }
std::vector<TimelineSample> TimelineSampler::samples() const {
  return impl->samples();
}
std::optional<TimelinePeak> TimelineSampler::peak() const {
  return impl->peak();
}
std::optional<TimelineSample> TimelineSampler::peakBetween(double t0,
                                                           double t1) const {
  return impl->peakBetween(t0, t1);
}
std::optional<std::string> TimelineSampler::error() const {
  return impl->error();
}

TimelineRecord TimelineSampler::record(bool withSamples) const {
  TimelineRecord r;
  r.intervalMs = intervalMs();
  r.sampler = backendName().str();
  r.samplerNote = backendNote();
  r.sampleCount = sampleCount();
  r.peak = peak();
  r.error = error();
  if (withSamples)
    r.samples = samples();
  return r;
}

void TimelineSampler::exportTrace(ChromeTrace &trace) const {
  for (const TimelineSample &s : samples())
    trace.addCounter("RSS", s.t, {{"rss_mb", double(s.rss) / 1e6}});
}
