//===- MeasureTest.cpp - measure() with real misbehaving processes --------===//

#include "UnitTestUtil.h"
#include "q2/Orchestrator/Measure.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <fstream>
#include <limits>
#include <thread>
#include <unistd.h>
#include "TestSanitizers.h"

using namespace q2::orch;

namespace {

class MeasureTest : public ::testing::Test {
protected:
  std::string path(const std::string &name) const { return Tmp + "/" + name; }

  MeasureOptions opts(std::vector<std::string> args, double wallS = 20,
                      double rssMb = 2000) {
    MeasureOptions o;
    o.argv = {Q2_TEST_CHILD};
    o.argv.insert(o.argv.end(), args.begin(), args.end());
    o.outDir = path("out");
    o.wallBudgetS = wallS;
    o.rssBudgetMB = rssMb;
    o.killGraceS = 0.5;
    return o;
  }

  nlohmann::json record() const {
    auto buf = llvm::MemoryBuffer::getFile(path("out/record.json"));
    EXPECT_TRUE(bool(buf));
    if (!buf)
      return {};
    return nlohmann::json::parse((*buf)->getBuffer().str());
  }

  int waitPidFile(const std::string &p) const {
    for (int i = 0; i < 500; ++i) {
      std::ifstream in(p);
      int pid = 0;
      if (in >> pid && pid > 0)
        return pid;
      usleep(10000);
    }
    return -1;
  }

  static bool gone(int pid) { return ::kill(pid, 0) == -1 && errno == ESRCH; }

  q2::test::TempDir TmpDir{"q2-measure"};
  std::string Tmp = TmpDir.path;
};

TEST_F(MeasureTest, NormalExitRecordsExitCodeAndOutput) {
  auto r = measure(opts({"exit", "3"}));
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(r->reason, StopReason::Exit);
  EXPECT_EQ(r->exitCode, 3);
  EXPECT_EQ(q2::test::slurp(path("out/stdout.txt")), "to stdout\n");
  EXPECT_EQ(q2::test::slurp(path("out/stderr.txt")), "to stderr\n");
  nlohmann::json j = record();
  EXPECT_EQ(j["reason"], "exit");
  EXPECT_EQ(j["exit_code"], 3);
  EXPECT_TRUE(j["signal"].is_null());
  EXPECT_DOUBLE_EQ(j["poll_s"].get<double>(), 0.01);
  EXPECT_DOUBLE_EQ(j["wall_budget_s"].get<double>(), 20);
  EXPECT_DOUBLE_EQ(j["rss_budget_mb"].get<double>(), 2000);
  EXPECT_EQ(j["command"][0], Q2_TEST_CHILD);
  EXPECT_EQ(j["command"][1], "exit");
  for (const char *k : {"wall_s", "peak_tree_rss_mb", "scope", "limitation",
                        "max_vmhwm_mb"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_NE(j["limitation"].get<std::string>().find("transient"),
            std::string::npos);
  EXPECT_FALSE(j.contains("cancelled_by"));

  // The typed reader gives back what measure() returned.
  auto back = readMeasureRecord(path("out/record.json"));
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(toJSONText(*back), toJSONText(*r));
  EXPECT_EQ(back->reason, StopReason::Exit);
  EXPECT_EQ(back->exitCode, 3);
  EXPECT_EQ(back->signal, 0);
}

TEST_F(MeasureTest, RecordReaderNamesFileAndKey) {
  ASSERT_TRUE(bool(measure(opts({"crash"}))));
  auto seg = readMeasureRecord(path("out/record.json"));
  ASSERT_TRUE(bool(seg)) << llvm::toString(seg.takeError());
  EXPECT_EQ(seg->signal, SIGSEGV); // Back from the name.
  EXPECT_EQ(seg->signalName, "SIGSEGV");
  EXPECT_EQ(seg->exitCode, -1);

  nlohmann::json j = record();
  j["wall_s"] = "slow";
  std::ofstream(path("bad.json")) << j.dump();
  auto bad = readMeasureRecord(path("bad.json"));
  ASSERT_FALSE(bool(bad));
  std::string msg = llvm::toString(bad.takeError());
  EXPECT_NE(msg.find(path("bad.json")), std::string::npos) << msg;
  EXPECT_NE(msg.find("wall_s: expected a number"), std::string::npos) << msg;

  j = record();
  j["reason"] = "bored";
  std::ofstream(path("bad2.json")) << j.dump();
  auto bad2 = readMeasureRecord(path("bad2.json"));
  ASSERT_FALSE(bool(bad2));
  msg = llvm::toString(bad2.takeError());
  EXPECT_NE(msg.find("reason: unknown value 'bored'"), std::string::npos)
      << msg;

  std::ofstream(path("list.json")) << "[]";
  auto list = readMeasureRecord(path("list.json"));
  ASSERT_FALSE(bool(list));
  msg = llvm::toString(list.takeError());
  EXPECT_NE(msg.find(path("list.json")), std::string::npos) << msg;
}

TEST_F(MeasureTest, PeakRssSeesAllocationWithinBudget) {
  Q2_SKIP_UNDER_ASAN("shadow memory adds to the child's RSS");
  // 150 MB touched and held for 0.5 s: sampled every 10 ms it must be seen.
  auto r = measure(opts({"alloc", "150", "0.5"}));
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(r->reason, StopReason::Exit);
  EXPECT_EQ(r->exitCode, 0);
  EXPECT_GE(r->peakTreeRssMB, 150.0);
  EXPECT_LE(r->peakTreeRssMB, 200.0); // 150 MB + a small process.
  // The kernel's own high-water mark agrees with the sampled peak.
  EXPECT_GE(r->maxVmHwmMB, 150.0);
  EXPECT_NEAR(r->peakTreeRssMB, r->maxVmHwmMB, 10.0);
  EXPECT_GE(r->wallS, 0.5);
}

TEST_F(MeasureTest, RssBudgetKillsTheChild) {
  auto r = measure(opts({"alloc", "400", "30"}, 20, 100));
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(r->reason, StopReason::RssBudget);
  EXPECT_EQ(r->signalName, "SIGTERM");
  EXPECT_GT(r->peakTreeRssMB, 100.0);
  EXPECT_LT(r->wallS, 10.0);
  nlohmann::json j = record();
  EXPECT_EQ(j["reason"], "rss_budget");
  EXPECT_TRUE(j["exit_code"].is_null());
}

TEST_F(MeasureTest, RssBudgetIsOnTheSumOverTheTree) {
  // Three children of 60 MB each: every process is below 100 MB, the tree
  // is not.
  auto r = measure(opts({"alloc-tree", "3", "60"}, 20, 100));
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(r->reason, StopReason::RssBudget);
  EXPECT_GT(r->peakTreeRssMB, 100.0);
  EXPECT_GE(r->peakTreeProcs, 3u);
  EXPECT_LT(r->maxVmHwmMB, 100.0); // No single process got there.
}

TEST_F(MeasureTest, WallBudgetKillsASleeper) {
  auto t0 = std::chrono::steady_clock::now();
  auto r = measure(opts({"sleep", "60"}, 0.3));
  double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(r->reason, StopReason::WallBudget);
  EXPECT_EQ(r->signalName, "SIGTERM");
  EXPECT_GE(r->wallS, 0.3);
  EXPECT_LT(r->wallS, 3.0);
  EXPECT_LT(took, 5.0);
  EXPECT_EQ(record()["reason"], "wall_budget");
}

TEST_F(MeasureTest, SegfaultIsASignal) {
  auto r = measure(opts({"crash"}));
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(r->reason, StopReason::Signal);
  EXPECT_EQ(r->signal, SIGSEGV);
  nlohmann::json j = record();
  EXPECT_EQ(j["reason"], "signal");
  EXPECT_EQ(j["signal"], "SIGSEGV");
  EXPECT_TRUE(j["exit_code"].is_null());
}

TEST_F(MeasureTest, SigtermIgnoredEscalatesToSigkill) {
  // The budget leaves the child ample time to install SIG_IGN first.
  auto r = measure(opts({"ignore-term", "60"}, 1.0));
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(r->reason, StopReason::WallBudget);
  EXPECT_EQ(r->signalName, "SIGKILL");
  EXPECT_LT(r->wallS, 5.0);
}

TEST_F(MeasureTest, GrandchildrenAreKilled) {
  auto r = measure(opts({"tree", path("gpid")}, 0.5));
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(r->reason, StopReason::WallBudget);
  EXPECT_GE(r->peakTreeProcs, 3u);
  int g = waitPidFile(path("gpid"));
  ASSERT_GT(g, 0);
  EXPECT_TRUE(gone(g)) << "grandchild " << g << " survived";
}

TEST_F(MeasureTest, GrandchildInANewSessionIsKilledToo) {
  // setsid() takes it out of the process group: only the /proc walk (and
  // the subreaper) keep it in the tree.
  auto r = measure(opts({"tree", path("gpid"), "setsid"}, 0.5));
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(r->reason, StopReason::WallBudget);
  int g = waitPidFile(path("gpid"));
  ASSERT_GT(g, 0);
  EXPECT_TRUE(gone(g)) << "grandchild " << g << " survived";
}

TEST_F(MeasureTest, StrayDescendantsAreKilledAfterANormalExit) {
  auto r = measure(opts({"stray", path("gpid")}));
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(r->reason, StopReason::Exit);
  EXPECT_EQ(r->exitCode, 0);
  EXPECT_GE(r->strayProcsKilled, 1u);
  int g = waitPidFile(path("gpid"));
  ASSERT_GT(g, 0);
  EXPECT_TRUE(gone(g)) << "stray " << g << " survived";
}

TEST_F(MeasureTest, EnvAndCwd) {
  MeasureOptions o = opts({"printenv", "Q2_TEST_VAR"});
  o.env = {{"Q2_TEST_VAR", "hello world"}};
  auto r = measure(o);
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(q2::test::slurp(path("out/stdout.txt")), "hello world\n");
  EXPECT_EQ(record()["env"]["Q2_TEST_VAR"], "hello world");

  llvm::sys::fs::create_directory(path("wd"));
  MeasureOptions p = opts({"pwd"});
  p.outDir = path("out2");
  p.cwd = path("wd");
  ASSERT_TRUE(bool(measure(p)));
  llvm::SmallString<256> real;
  llvm::sys::fs::real_path(path("wd"), real);
  EXPECT_EQ(q2::test::slurp(path("out2/stdout.txt")), std::string(real) + "\n");
}

TEST_F(MeasureTest, CancelStopsTheTree) {
  std::atomic<bool> Cancel{false};
  std::atomic<int> Signal{0};
  MeasureOptions o = opts({"tree", path("gpid")});
  o.cancel = &Cancel;
  o.cancelSignal = &Signal;
  std::thread t([&] {
    // Once the grandchild is up, as a signal handler would do it.
    waitPidFile(path("gpid"));
    Signal = SIGTERM;
    Cancel = true;
  });
  auto r = measure(o);
  t.join();
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(r->reason, StopReason::Cancelled);
  ASSERT_TRUE(r->cancelledBy.has_value());
  EXPECT_EQ(*r->cancelledBy, "SIGTERM");
  EXPECT_LT(r->wallS, 3.0);
  nlohmann::json j = record();
  EXPECT_EQ(j["reason"], "cancelled");
  EXPECT_EQ(j["cancelled_by"], "SIGTERM");
  int g = waitPidFile(path("gpid"));
  ASSERT_GT(g, 0);
  EXPECT_TRUE(gone(g)) << "grandchild " << g << " survived";
}

TEST_F(MeasureTest, PollIntervalIsBounded) {
  EXPECT_FALSE(bool(checkPollInterval(0.010, 600)));
  EXPECT_FALSE(bool(checkPollInterval(kMinPollS, 600)));
  EXPECT_FALSE(bool(checkPollInterval(kMaxPollS, 600)));
  EXPECT_FALSE(bool(checkPollInterval(0.2, 0.2)));
  for (auto [Poll, Wall] : std::vector<std::pair<double, double>>{
           {1e6, 600}, {1.5, 600}, {0.0005, 600}, {0, 600}, {-1, 600},
           {NAN, 600}, {INFINITY, 600}, {0.5, 0.3}}) {
    llvm::Error e = checkPollInterval(Poll, Wall);
    ASSERT_TRUE(bool(e)) << Poll << " " << Wall;
    std::string msg = llvm::toString(std::move(e));
    EXPECT_NE(msg.find("poll interval"), std::string::npos) << msg;
  }
  EXPECT_EQ(llvm::toString(checkPollInterval(1e6, 600)),
            "poll interval must be between 1 and 1000 ms, got 1e+09 ms");
  EXPECT_EQ(llvm::toString(checkPollInterval(0.5, 0.3)),
            "poll interval of 500 ms is longer than the wall budget of 0.3 s");
}

// Every refusal happens before anything is created or started.
TEST_F(MeasureTest, RefusalsLeaveNoDirectory) {
  const double inf = std::numeric_limits<double>::infinity();
  const double naN = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::pair<std::string, MeasureOptions>> cases;
  auto add = [&](const std::string &name, auto mutate) {
    MeasureOptions o = opts({"stray", path("must-not-exist")});
    mutate(o);
    cases.push_back({name, o});
  };
  add("empty argv", [](MeasureOptions &o) { o.argv.clear(); });
  add("NUL in argument",
      [](MeasureOptions &o) { o.argv.push_back(std::string("a\0b", 3)); });
  add("NUL in program", [](MeasureOptions &o) { o.argv[0] += '\0'; });
  add("NUL in env value", [](MeasureOptions &o) {
    o.env.push_back({"K", std::string("v\0w", 3)});
  });
  add("bad env name", [](MeasureOptions &o) { o.env.push_back({"A=B", "c"}); });
  for (double bad : {0.0, -1.0, inf, -inf, naN}) {
    add("wall " + std::to_string(bad),
        [=](MeasureOptions &o) { o.wallBudgetS = bad; });
    add("rss " + std::to_string(bad),
        [=](MeasureOptions &o) { o.rssBudgetMB = bad; });
  }
  // A poll interval of 1e6 s would disable the wall budget.
  for (double bad : {1e6, 1.5, 0.0005, 0.0, naN, inf})
    add("poll " + std::to_string(bad),
        [=](MeasureOptions &o) { o.pollS = bad; });
  add("poll longer than the wall budget", [](MeasureOptions &o) {
    o.wallBudgetS = 0.2;
    o.pollS = 0.5;
  });
  add("no /proc", [&](MeasureOptions &o) { o.procRoot = path("no-proc"); });
  add("missing program",
      [](MeasureOptions &o) { o.argv[0] = "q2-no-such-program-xyz"; });
  add("missing parent",
      [&](MeasureOptions &o) { o.outDir = path("no/such/out"); });
  add("missing cwd", [&](MeasureOptions &o) { o.cwd = path("nowhere"); });

  for (auto &[Name, O] : cases) {
    llvm::Error e = validateMeasureOptions(O);
    EXPECT_TRUE(bool(e)) << Name;
    llvm::consumeError(std::move(e));
    auto r = measure(O);
    EXPECT_FALSE(bool(r)) << Name;
    if (!r)
      llvm::consumeError(r.takeError());
    EXPECT_FALSE(llvm::sys::fs::exists(O.outDir)) << Name;
    EXPECT_FALSE(llvm::sys::fs::exists(path("must-not-exist"))) << Name
        << ": the command was started";
  }
}

TEST_F(MeasureTest, ExistingDirectoryIsRefusedAndUntouched) {
  ASSERT_FALSE(llvm::sys::fs::create_directory(path("out")));
  auto r = measure(opts({"stray", path("must-not-exist")}));
  ASSERT_FALSE(bool(r));
  std::string msg = llvm::toString(r.takeError());
  EXPECT_NE(msg.find("already exists"), std::string::npos) << msg;
  EXPECT_FALSE(llvm::sys::fs::exists(path("out/record.json")));
  EXPECT_FALSE(llvm::sys::fs::exists(path("must-not-exist")));
}

TEST(SignalName, Names) {
  EXPECT_EQ(signalName(SIGSEGV), "SIGSEGV");
  EXPECT_EQ(signalName(SIGKILL), "SIGKILL");
  EXPECT_EQ(signalName(SIGABRT), "SIGABRT");
}

} // namespace
