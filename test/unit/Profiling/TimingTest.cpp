//===- TimingTest.cpp - ScopedTimer and Stats -----------------------------===//

#include "q2/Profiling/Timing.h"
#include "q2/Profiling/Memory.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <unistd.h>

using namespace q2::profiling;
using namespace q2::profiling::test;

namespace {

TEST(ProfStats, HandComputedValues) {
  Stats s;
  for (double x : {3.0, 1.0, 4.0, 1.0, 5.0})
    s.add(x);
  EXPECT_EQ(s.count(), 5u);
  EXPECT_DOUBLE_EQ(s.total(), 14.0);
  EXPECT_DOUBLE_EQ(s.mean(), 2.8);
  EXPECT_DOUBLE_EQ(s.min(), 1.0);
  EXPECT_DOUBLE_EQ(s.max(), 5.0);
  EXPECT_DOUBLE_EQ(s.median(), 3.0);
  // deviations .2 -1.8 1.2 -1.8 2.2: squares sum to 12.8, / (n-1) = 3.2
  EXPECT_NEAR(s.stddev(), std::sqrt(3.2), 1e-12);
  EXPECT_EQ(s.summary(), "n=5 total=14 mean=2.8 min=1 median=3 max=5");
  EXPECT_EQ(s.summary(1e3, "ms"),
            "n=5 total=14000ms mean=2800ms min=1000ms median=3000ms "
            "max=5000ms");
  nlohmann::json j = test::asJSON(s.record());
  EXPECT_EQ(j["count"], 5);
  EXPECT_DOUBLE_EQ(j["median"].get<double>(), 3.0);
}

TEST(ProfStats, EvenCountMedianAndEmpty) {
  Stats s;
  EXPECT_EQ(s.count(), 0u);
  EXPECT_EQ(s.mean(), 0.0);
  EXPECT_EQ(s.median(), 0.0);
  EXPECT_EQ(s.stddev(), 0.0);
  EXPECT_EQ(s.summary(), "n=0 total=0 mean=0 min=0 median=0 max=0");
  for (double x : {4.0, 1.0, 3.0, 2.0})
    s.add(x);
  EXPECT_DOUBLE_EQ(s.median(), 2.5);
  EXPECT_DOUBLE_EQ(s.mean(), 2.5);
  s.add(-7.5);
  EXPECT_DOUBLE_EQ(s.min(), -7.5);
  EXPECT_DOUBLE_EQ(s.median(), 2.0);
  // The median must not reorder the samples as seen by the caller.
  EXPECT_EQ(s.samples().front(), 4.0);
}

TEST(ProfScopedTimer, SleepIsWallNotCPU) {
  TimingSample out;
  {
    ScopedTimer t(out);
    sleepMs(50);
  }
  EXPECT_GE(out.wallS, 0.049);
  EXPECT_LT(out.wallS, 5.0);
  EXPECT_LT(out.cpuS, 0.03);
}

TEST(ProfScopedTimer, BusyLoopIsCPU) {
  TimingSample out;
  {
    ScopedTimer t(out);
    double c0 = threadCPUSeconds();
    volatile double x = 0;
    while (threadCPUSeconds() - c0 < 0.03)
      x = x + 1;
  }
  EXPECT_GE(out.cpuS, 0.029);
  EXPECT_GE(out.wallS, out.cpuS * 0.95);
}

TEST(ProfScopedTimer, DeliversOnceToEachSinkKind) {
  Stats wall, cpu;
  int calls = 0;
  {
    ScopedTimer a(wall, &cpu);
    ScopedTimer b([&](const TimingSample &) { ++calls; });
    TimingSample first = b.stop();
    TimingSample again = b.stop(); // no second delivery
    EXPECT_GE(again.wallS, first.wallS);
  }
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(wall.count(), 1u);
  EXPECT_EQ(cpu.count(), 1u);
  for (int i = 0; i < 3; ++i)
    ScopedTimer t(wall);
  EXPECT_EQ(wall.count(), 4u);
}

} // namespace
