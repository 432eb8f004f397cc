//===- TimelineTest.cpp - Sampler thread and phase tagging ----------------===//

#include "q2/Profiling/Timeline.h"
#include "TestUtil.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

#include <set>
#include <sys/wait.h>
#include <unistd.h>

using namespace q2::profiling;
using namespace q2::profiling::test;

namespace {

std::unique_ptr<TimelineSampler> makeSampler(int ms, PhaseTracker *ph,
                                             pid_t pid = 0,
                                             double smapsBackoff = 10.0) {
  TimelineSampler::Options o;
  o.intervalMs = ms;
  o.pid = pid;
  o.smapsBackoff = smapsBackoff;
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

// Samples carry the phase set while they were taken, and the peak is
// attributed to the phase that held the memory.
TEST(ProfTimeline, TagsSamplesAndAttributesPeak) {
  PhaseTracker ph;
  // No smaps back-off: on a loaded machine one slow smaps read would
  // otherwise postpone the next capture past the 30 ms plateau.
  auto s = makeSampler(1, &ph, 0, /*smapsBackoff=*/0);
  ASSERT_TRUE(s);
  ph.setStage("S1");
  ph.setPass("A");
  ASSERT_FALSE(bool(s->start()));
  EXPECT_TRUE(s->running());
  llvm::Error again = s->start();
  EXPECT_TRUE(bool(again)) << "second start must fail";
  llvm::consumeError(std::move(again));
  usleep(30000);
  ph.setPass("B");
  char *p = allocTouched(64 * MiB);
  usleep(30000);
  std::free(p);
  ph.setPass("C");
  usleep(30000);
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

  TimelinePeak pk = s->peak();
  ASSERT_TRUE(pk.valid);
  EXPECT_EQ(pk.sample.pass, "B");
  EXPECT_GE(double(pk.sample.rss), double(minA) + 0.9 * 64 * MiB);
  ASSERT_TRUE(pk.smaps.has_value());
  EXPECT_GE(double(pk.smaps->at("Rss")), 0.9 * double(pk.sample.rss));
  EXPECT_LE(pk.smapsAtRSS, pk.sample.rss);

  auto inB = s->peakBetween(v.front().t, v.back().t);
  ASSERT_TRUE(inB.has_value());
  EXPECT_EQ(inB->rss, pk.sample.rss);
  EXPECT_FALSE(s->peakBetween(v.back().t + 1, v.back().t + 2).has_value());

  nlohmann::json j = s->toJSON();
  EXPECT_EQ(j["interval_ms"], 1);
  EXPECT_EQ(j["samples"].size(), v.size());
  EXPECT_EQ(j["peak"]["pass"], "B");
  EXPECT_TRUE(j["peak"].contains("smaps_rollup"));
}

TEST(ProfTimeline, WithoutPhaseTrackerHasEmptyTags) {
  auto s = makeSampler(5, nullptr);
  ASSERT_TRUE(s);
  ASSERT_FALSE(bool(s->start()));
  usleep(20000);
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

// Watching another process; sampling stops with an error when it is gone.
TEST(ProfTimeline, WatchesChildUntilItExits) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    (void)!write(ready[1], "r", 1);
    usleep(20000);
    char *p = allocTouched(80 * MiB);
    usleep(40000);
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
    usleep(5000);
  EXPECT_TRUE(s->error().has_value());
  s->stop();
  EXPECT_GE(double(s->peak().sample.rss), 0.9 * 80 * MiB);
  close(ready[0]);
  close(ready[1]);
}

} // namespace
