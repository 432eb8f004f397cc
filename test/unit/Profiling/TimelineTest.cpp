//===- TimelineTest.cpp - Sampler thread and phase tagging ----------------===//

#include "q2/Profiling/Timeline.h"
#include "TestUtil.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

#include <csignal>
#include <set>
#include <sys/wait.h>
#include <unistd.h>
#include "TestSanitizers.h"

using namespace q2::profiling;
using namespace q2::profiling::test;

namespace {

using Backend = TimelineSampler::Options::Backend;

std::unique_ptr<TimelineSampler> makeSampler(int ms, PhaseTracker *ph,
                                             pid_t pid = 0,
                                             double smapsBudget = 0.02,
                                             Backend backend = Backend::Auto) {
  TimelineSampler::Options o;
  o.intervalMs = ms;
  o.pid = pid;
  o.smapsBudget = smapsBudget;
  o.backend = backend;
  auto s = TimelineSampler::create(o, ph);
  EXPECT_TRUE(bool(s)) << (s ? "" : llvm::toString(s.takeError()));
  return s ? std::move(*s) : nullptr;
}

TEST(ProfTimeline, RejectsNonPositiveInterval) {
  for (int ms : {0, -5}) {
    TimelineSampler::Options o;
    o.intervalMs = ms;
    auto s = TimelineSampler::create(o);
    ASSERT_FALSE(bool(s));
    std::string msg = llvm::toString(s.takeError());
    EXPECT_NE(msg.find("positive"), std::string::npos) << msg;
  }
}

TEST(ProfTimeline, PhaseTrackerInternsAndVersions) {
  PhaseTracker ph;
  uint64_t g0 = ph.generation();
  ph.setStage("S");
  ph.setPass("p", 7);
  PhaseTracker::Phase cur = ph.current();
  EXPECT_EQ(ph.name(cur.stage), "S");
  EXPECT_EQ(ph.name(cur.pass), "p");
  EXPECT_EQ(cur.record, 7);
  EXPECT_EQ(cur.generation, g0 + 2);
  ph.setStage("T"); // clears the pass
  cur = ph.current();
  EXPECT_EQ(ph.name(cur.stage), "T");
  EXPECT_EQ(cur.pass, 0u);
  EXPECT_EQ(cur.record, -1);
  ph.setPass("p");
  EXPECT_EQ(ph.current().pass, ph.current().pass); // same id reused
  EXPECT_EQ(ph.name(12345), "");
}

// Both backends must behave the same; each test below runs on both.
class ProfTimelineBackend : public ::testing::TestWithParam<Backend> {};

std::string backendLabel(const ::testing::TestParamInfo<Backend> &info) {
  return info.param == Backend::Signal ? "Signal" : "Thread";
}

// Samples carry the phase set while they were taken, and the peak is
// attributed to the phase that held the memory.
TEST_P(ProfTimelineBackend, TagsSamplesAndAttributesPeak) {
  Q2_SKIP_UNDER_ASAN("the quarantine keeps freed memory resident");
  PhaseTracker ph;
  // No smaps time budget: on a loaded machine one slow smaps read would
  // otherwise postpone the next capture past the 30 ms plateau.
  auto s = makeSampler(1, &ph, 0, /*smapsBudget=*/1e9, GetParam());
  ASSERT_TRUE(s);
  ph.setStage("S1");
  ph.setPass("A");
  ASSERT_FALSE(bool(s->start()));
  EXPECT_TRUE(s->running());
  EXPECT_EQ(s->backendName(), GetParam() == Backend::Signal ? "signal" : "thread");
  llvm::Error again = s->start();
  EXPECT_TRUE(bool(again)) << "second start must fail";
  llvm::consumeError(std::move(again));
  sleepMs(30);
  ph.setPass("B");
  char *p = allocTouched(64 * MiB);
  sleepMs(30);
  std::free(p);
  ph.setPass("C");
  sleepMs(30);
  s->stop();
  s->stop(); // idempotent
  EXPECT_FALSE(s->running());

  std::vector<TimelineSample> v = s->samples();
  ASSERT_GE(v.size(), 10u);
  EXPECT_EQ(v.size(), s->sampleCount());
  std::set<std::string> seen;
  int lastPhase = 0;
  uint64_t minA = UINT64_MAX;
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(v[i].stage, "S1");
    seen.insert(v[i].pass);
    int phaseNo = v[i].pass[0] - 'A';
    EXPECT_GE(phaseNo, lastPhase) << "phases out of order at " << i;
    lastPhase = phaseNo;
    if (i) {
      EXPECT_GE(v[i].t, v[i - 1].t);
    }
    if (v[i].pass == "A")
      minA = std::min(minA, v[i].rss);
  }
  EXPECT_EQ(seen, (std::set<std::string>{"A", "B", "C"}));

  ASSERT_TRUE(s->peak().has_value());
  TimelinePeak pk = *s->peak();
  EXPECT_EQ(pk.sample.pass, "B");
  EXPECT_GE(double(pk.sample.rss), double(minA) + 0.9 * 64 * MiB);
  ASSERT_TRUE(pk.smaps.has_value());
  EXPECT_GE(double(pk.smaps->at("Rss")), 0.9 * double(pk.sample.rss));
  EXPECT_LE(pk.smapsAtRSS, pk.sample.rss);

  auto inB = s->peakBetween(v.front().t, v.back().t);
  ASSERT_TRUE(inB.has_value());
  EXPECT_EQ(inB->rss, pk.sample.rss);
  EXPECT_FALSE(s->peakBetween(v.back().t + 1, v.back().t + 2).has_value());

  nlohmann::json j = test::asJSON(s->record());
  EXPECT_EQ(j["interval_ms"], 1);
  EXPECT_EQ(j["samples"].size(), v.size());
  EXPECT_EQ(j["peak"]["pass"], "B");
  EXPECT_TRUE(j["peak"].contains("smaps_rollup"));
}

TEST_P(ProfTimelineBackend, WithoutPhaseTrackerHasEmptyTags) {
  auto s = makeSampler(5, nullptr, 0, 0.02, GetParam());
  ASSERT_TRUE(s);
  ASSERT_FALSE(bool(s->start()));
  sleepMs(20);
  s->sampleNow();
  s->stop();
  auto v = s->samples();
  ASSERT_GE(v.size(), 2u);
  for (auto &x : v) {
    EXPECT_EQ(x.stage, "");
    EXPECT_EQ(x.pass, "");
    EXPECT_GT(x.rss, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, ProfTimelineBackend,
                         ::testing::Values(Backend::Signal, Backend::Thread),
                         backendLabel);

// Auto picks the signal for this process and gives the signal back after:
// a tick left pending must not kill the process under the default action.
TEST(ProfTimeline, SignalIsDefaultForSelfAndIsReleased) {
  const int signo = TimelineSampler::signalNumber();
  auto s = makeSampler(1, nullptr);
  ASSERT_TRUE(s);
  ASSERT_FALSE(bool(s->start()));
  EXPECT_EQ(s->backendName(), "signal");
  struct sigaction cur {};
  ASSERT_EQ(sigaction(signo, nullptr, &cur), 0);
  EXPECT_NE(cur.sa_handler, SIG_DFL);

  // Only one signal sampler per process: Auto falls back to a thread and
  // says why; Signal refuses.
  auto second = makeSampler(1, nullptr);
  ASSERT_FALSE(bool(second->start()));
  EXPECT_EQ(second->backendName(), "thread");
  EXPECT_NE(second->backendNote().find("another timeline"), std::string::npos)
      << second->backendNote();
  second->stop();
  auto third = makeSampler(1, nullptr, 0, 0.02, Backend::Signal);
  llvm::Error err = third->start();
  EXPECT_TRUE(bool(err));
  llvm::consumeError(std::move(err));

  sleepMs(20);
  s->stop();
  ASSERT_EQ(sigaction(signo, nullptr, &cur), 0);
  EXPECT_EQ(cur.sa_handler, SIG_DFL);
  EXPECT_GE(s->sampleCount(), 5u);
  // A second session can take the signal again.
  auto again = makeSampler(1, nullptr);
  ASSERT_FALSE(bool(again->start()));
  EXPECT_EQ(again->backendName(), "signal");
  again->stop();
}

// Past the signal buffer, samples are dropped but the highest is kept and
// the report says how many were dropped.
TEST(ProfTimeline, SignalBufferOverflowKeepsThePeak) {
  TimelineSampler::Options o;
  o.intervalMs = 1;
  o.backend = Backend::Signal;
  o.signalBufferSamples = 4;
  auto s = TimelineSampler::create(o);
  ASSERT_TRUE(bool(s));
  ASSERT_FALSE(bool((*s)->start()));
  sleepMs(20);
  char *p = allocTouched(64 * MiB); // after the buffer has filled
  sleepMs(20);
  uint64_t rssWithBlock = 0;
  if (auto r = readCurrentRSS())
    rssWithBlock = *r;
  else
    llvm::consumeError(r.takeError());
  std::free(p);
  sleepMs(10);
  (*s)->stop();
  EXPECT_NE((*s)->backendNote().find("samples"), std::string::npos)
      << (*s)->backendNote();
  // 4 buffered + the kept highest + start/stop samples, not ~50.
  EXPECT_LE((*s)->sampleCount(), 8u);
  EXPECT_GE(double((*s)->peak()->sample.rss), 0.9 * double(rssWithBlock));
}

// A signal the host already handles is left alone.
TEST(ProfTimeline, SignalInUseFallsBackToThread) {
  const int signo = TimelineSampler::signalNumber();
  struct sigaction mine {}, old {};
  mine.sa_handler = [](int) {};
  sigemptyset(&mine.sa_mask);
  ASSERT_EQ(sigaction(signo, &mine, &old), 0);
  auto s = makeSampler(5, nullptr);
  ASSERT_FALSE(bool(s->start()));
  EXPECT_EQ(s->backendName(), "thread");
  s->stop();
  struct sigaction cur {};
  ASSERT_EQ(sigaction(signo, &old, &cur), 0);
  EXPECT_EQ(cur.sa_handler, mine.sa_handler) << "our handler was replaced";
}

// Watching another process; sampling stops with an error when it is gone.
TEST(ProfTimeline, WatchesChildUntilItExits) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    (void)!write(ready[1], "r", 1);
    sleepMs(20);
    char *p = allocTouched(80 * MiB);
    sleepMs(40);
    clobber(p);
    _exit(0);
  }
  char c;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  auto s = makeSampler(2, nullptr, child);
  ASSERT_TRUE(s);
  ASSERT_FALSE(bool(s->start()));
  int status;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  for (int i = 0; i < 100 && !s->error(); ++i)
    sleepMs(5);
  EXPECT_TRUE(s->error().has_value());
  s->stop();
  EXPECT_GE(double(s->peak()->sample.rss), 0.9 * 80 * MiB);
  close(ready[0]);
  close(ready[1]);
}

} // namespace

// The signal backend's sample buffer (32 MiB of address space by default) is
// the profiler's, not the program's: mallinfo2's heap must not grow by it.
TEST(ProfTimeline, SignalBufferIsNotProgramHeap) {
  HeapInfo before = readHeap();
  auto s = makeSampler(1, nullptr, 0, 0.02, Backend::Signal);
  ASSERT_NE(s, nullptr);
  ASSERT_FALSE(bool(s->start()));
  HeapInfo during = readHeap();
  s->stop();
  EXPECT_LT(double(during.inUse), double(before.inUse) + 1.0 * MiB)
      << "heap " << before.inUse << " -> " << during.inUse;
}
