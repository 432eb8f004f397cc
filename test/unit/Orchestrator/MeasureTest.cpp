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
  std::string path(const std::string &Name) const { return Tmp + "/" + Name; }

  MeasureOptions opts(std::vector<std::string> Args, double WallS = 20,
                      double RssMB = 2000) {
    MeasureOptions O;
    O.argv = {Q2_TEST_CHILD};
    O.argv.insert(O.argv.end(), Args.begin(), Args.end());
    O.outDir = path("out");
    O.wallBudgetS = WallS;
    O.rssBudgetMB = RssMB;
    O.killGraceS = 0.5;
    return O;
  }

  nlohmann::json record() const {
    auto Buf = llvm::MemoryBuffer::getFile(path("out/record.json"));
    EXPECT_TRUE(bool(Buf));
    if (!Buf)
      return {};
    return nlohmann::json::parse((*Buf)->getBuffer().str());
  }

  int waitPidFile(const std::string &P) const {
    for (int I = 0; I < 500; ++I) {
      std::ifstream In(P);
      int Pid = 0;
      if (In >> Pid && Pid > 0)
        return Pid;
      usleep(10000);
    }
    return -1;
  }

  static bool gone(int Pid) { return ::kill(Pid, 0) == -1 && errno == ESRCH; }

  q2::test::TempDir TmpDir{"q2-measure"};
  std::string Tmp = TmpDir.path;
};

TEST_F(MeasureTest, NormalExitRecordsExitCodeAndOutput) {
  auto R = measure(opts({"exit", "3"}));
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->reason, StopReason::Exit);
  EXPECT_EQ(R->exitCode, 3);
  EXPECT_EQ(q2::test::slurp(path("out/stdout.txt")), "to stdout\n");
  EXPECT_EQ(q2::test::slurp(path("out/stderr.txt")), "to stderr\n");
  nlohmann::json J = record();
  EXPECT_EQ(J["reason"], "exit");
  EXPECT_EQ(J["exit_code"], 3);
  EXPECT_TRUE(J["signal"].is_null());
  EXPECT_DOUBLE_EQ(J["poll_s"].get<double>(), 0.01);
  EXPECT_DOUBLE_EQ(J["wall_budget_s"].get<double>(), 20);
  EXPECT_DOUBLE_EQ(J["rss_budget_mb"].get<double>(), 2000);
  EXPECT_EQ(J["command"][0], Q2_TEST_CHILD);
  EXPECT_EQ(J["command"][1], "exit");
  for (const char *K : {"wall_s", "peak_tree_rss_mb", "scope", "limitation",
                        "max_vmhwm_mb"})
    EXPECT_TRUE(J.contains(K)) << K;
  EXPECT_NE(J["limitation"].get<std::string>().find("transient"),
            std::string::npos);
  EXPECT_FALSE(J.contains("cancelled_by"));

  // The typed reader gives back what measure() returned.
  auto Back = readMeasureRecord(path("out/record.json"));
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(toJSONText(*Back), toJSONText(*R));
  EXPECT_EQ(Back->reason, StopReason::Exit);
  EXPECT_EQ(Back->exitCode, 3);
  EXPECT_EQ(Back->signal, 0);
}

TEST_F(MeasureTest, RecordReaderNamesFileAndKey) {
  ASSERT_TRUE(bool(measure(opts({"crash"}))));
  auto Seg = readMeasureRecord(path("out/record.json"));
  ASSERT_TRUE(bool(Seg)) << llvm::toString(Seg.takeError());
  EXPECT_EQ(Seg->signal, SIGSEGV); // Back from the name.
  EXPECT_EQ(Seg->signalName, "SIGSEGV");
  EXPECT_EQ(Seg->exitCode, -1);

  nlohmann::json J = record();
  J["wall_s"] = "slow";
  std::ofstream(path("bad.json")) << J.dump();
  auto Bad = readMeasureRecord(path("bad.json"));
  ASSERT_FALSE(bool(Bad));
  std::string Msg = llvm::toString(Bad.takeError());
  EXPECT_NE(Msg.find(path("bad.json")), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("wall_s: expected a number"), std::string::npos) << Msg;

  J = record();
  J["reason"] = "bored";
  std::ofstream(path("bad2.json")) << J.dump();
  auto Bad2 = readMeasureRecord(path("bad2.json"));
  ASSERT_FALSE(bool(Bad2));
  Msg = llvm::toString(Bad2.takeError());
  EXPECT_NE(Msg.find("reason: unknown value 'bored'"), std::string::npos)
      << Msg;

  std::ofstream(path("list.json")) << "[]";
  auto List = readMeasureRecord(path("list.json"));
  ASSERT_FALSE(bool(List));
  Msg = llvm::toString(List.takeError());
  EXPECT_NE(Msg.find(path("list.json")), std::string::npos) << Msg;
}

TEST_F(MeasureTest, PeakRssSeesAllocationWithinBudget) {
  Q2_SKIP_UNDER_ASAN("shadow memory adds to the child's RSS");
  // 150 MB touched and held for 0.5 s: sampled every 10 ms it must be seen.
  auto R = measure(opts({"alloc", "150", "0.5"}));
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->reason, StopReason::Exit);
  EXPECT_EQ(R->exitCode, 0);
  EXPECT_GE(R->peakTreeRssMB, 150.0);
  EXPECT_LE(R->peakTreeRssMB, 200.0); // 150 MB + a small process.
  // The kernel's own high-water mark agrees with the sampled peak.
  EXPECT_GE(R->maxVmHwmMB, 150.0);
  EXPECT_NEAR(R->peakTreeRssMB, R->maxVmHwmMB, 10.0);
  EXPECT_GE(R->wallS, 0.5);
}

TEST_F(MeasureTest, RssBudgetKillsTheChild) {
  auto R = measure(opts({"alloc", "400", "30"}, 20, 100));
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->reason, StopReason::RssBudget);
  EXPECT_EQ(R->signalName, "SIGTERM");
  EXPECT_GT(R->peakTreeRssMB, 100.0);
  EXPECT_LT(R->wallS, 10.0);
  nlohmann::json J = record();
  EXPECT_EQ(J["reason"], "rss_budget");
  EXPECT_TRUE(J["exit_code"].is_null());
}

TEST_F(MeasureTest, RssBudgetIsOnTheSumOverTheTree) {
  // Three children of 60 MB each: every process is below 100 MB, the tree
  // is not.
  auto R = measure(opts({"alloc-tree", "3", "60"}, 20, 100));
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->reason, StopReason::RssBudget);
  EXPECT_GT(R->peakTreeRssMB, 100.0);
  EXPECT_GE(R->peakTreeProcs, 3u);
  EXPECT_LT(R->maxVmHwmMB, 100.0); // No single process got there.
}

TEST_F(MeasureTest, WallBudgetKillsASleeper) {
  auto T0 = std::chrono::steady_clock::now();
  auto R = measure(opts({"sleep", "60"}, 0.3));
  double Took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - T0)
          .count();
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->reason, StopReason::WallBudget);
  EXPECT_EQ(R->signalName, "SIGTERM");
  EXPECT_GE(R->wallS, 0.3);
  EXPECT_LT(R->wallS, 3.0);
  EXPECT_LT(Took, 5.0);
  EXPECT_EQ(record()["reason"], "wall_budget");
}

TEST_F(MeasureTest, SegfaultIsASignal) {
  auto R = measure(opts({"crash"}));
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->reason, StopReason::Signal);
  EXPECT_EQ(R->signal, SIGSEGV);
  nlohmann::json J = record();
  EXPECT_EQ(J["reason"], "signal");
  EXPECT_EQ(J["signal"], "SIGSEGV");
  EXPECT_TRUE(J["exit_code"].is_null());
}

TEST_F(MeasureTest, SigtermIgnoredEscalatesToSigkill) {
  // The budget leaves the child ample time to install SIG_IGN first.
  auto R = measure(opts({"ignore-term", "60"}, 1.0));
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->reason, StopReason::WallBudget);
  EXPECT_EQ(R->signalName, "SIGKILL");
  EXPECT_LT(R->wallS, 5.0);
}

TEST_F(MeasureTest, GrandchildrenAreKilled) {
  auto R = measure(opts({"tree", path("gpid")}, 0.5));
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->reason, StopReason::WallBudget);
  EXPECT_GE(R->peakTreeProcs, 3u);
  int G = waitPidFile(path("gpid"));
  ASSERT_GT(G, 0);
  EXPECT_TRUE(gone(G)) << "grandchild " << G << " survived";
}

TEST_F(MeasureTest, GrandchildInANewSessionIsKilledToo) {
  // setsid() takes it out of the process group: only the /proc walk (and
  // the subreaper) keep it in the tree.
  auto R = measure(opts({"tree", path("gpid"), "setsid"}, 0.5));
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->reason, StopReason::WallBudget);
  int G = waitPidFile(path("gpid"));
  ASSERT_GT(G, 0);
  EXPECT_TRUE(gone(G)) << "grandchild " << G << " survived";
}

TEST_F(MeasureTest, StrayDescendantsAreKilledAfterANormalExit) {
  auto R = measure(opts({"stray", path("gpid")}));
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->reason, StopReason::Exit);
  EXPECT_EQ(R->exitCode, 0);
  EXPECT_GE(R->strayProcsKilled, 1u);
  int G = waitPidFile(path("gpid"));
  ASSERT_GT(G, 0);
  EXPECT_TRUE(gone(G)) << "stray " << G << " survived";
}

TEST_F(MeasureTest, EnvAndCwd) {
  MeasureOptions O = opts({"printenv", "Q2_TEST_VAR"});
  O.env = {{"Q2_TEST_VAR", "hello world"}};
  auto R = measure(O);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(q2::test::slurp(path("out/stdout.txt")), "hello world\n");
  EXPECT_EQ(record()["env"]["Q2_TEST_VAR"], "hello world");

  llvm::sys::fs::create_directory(path("wd"));
  MeasureOptions P = opts({"pwd"});
  P.outDir = path("out2");
  P.cwd = path("wd");
  ASSERT_TRUE(bool(measure(P)));
  llvm::SmallString<256> Real;
  llvm::sys::fs::real_path(path("wd"), Real);
  EXPECT_EQ(q2::test::slurp(path("out2/stdout.txt")), std::string(Real) + "\n");
}

TEST_F(MeasureTest, CancelStopsTheTree) {
  std::atomic<bool> Cancel{false};
  std::atomic<int> Signal{0};
  MeasureOptions O = opts({"tree", path("gpid")});
  O.cancel = &Cancel;
  O.cancelSignal = &Signal;
  std::thread T([&] {
    // Once the grandchild is up, as a signal handler would do it.
    waitPidFile(path("gpid"));
    Signal = SIGTERM;
    Cancel = true;
  });
  auto R = measure(O);
  T.join();
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->reason, StopReason::Cancelled);
  ASSERT_TRUE(R->cancelledBy.has_value());
  EXPECT_EQ(*R->cancelledBy, "SIGTERM");
  EXPECT_LT(R->wallS, 3.0);
  nlohmann::json J = record();
  EXPECT_EQ(J["reason"], "cancelled");
  EXPECT_EQ(J["cancelled_by"], "SIGTERM");
  int G = waitPidFile(path("gpid"));
  ASSERT_GT(G, 0);
  EXPECT_TRUE(gone(G)) << "grandchild " << G << " survived";
}

TEST_F(MeasureTest, PollIntervalIsBounded) {
  EXPECT_FALSE(bool(checkPollInterval(0.010, 600)));
  EXPECT_FALSE(bool(checkPollInterval(kMinPollS, 600)));
  EXPECT_FALSE(bool(checkPollInterval(kMaxPollS, 600)));
  EXPECT_FALSE(bool(checkPollInterval(0.2, 0.2)));
  for (auto [Poll, Wall] : std::vector<std::pair<double, double>>{
           {1e6, 600}, {1.5, 600}, {0.0005, 600}, {0, 600}, {-1, 600},
           {NAN, 600}, {INFINITY, 600}, {0.5, 0.3}}) {
    llvm::Error E = checkPollInterval(Poll, Wall);
    ASSERT_TRUE(bool(E)) << Poll << " " << Wall;
    std::string Msg = llvm::toString(std::move(E));
    EXPECT_NE(Msg.find("poll interval"), std::string::npos) << Msg;
  }
  EXPECT_EQ(llvm::toString(checkPollInterval(1e6, 600)),
            "poll interval must be between 1 and 1000 ms, got 1e+09 ms");
  EXPECT_EQ(llvm::toString(checkPollInterval(0.5, 0.3)),
            "poll interval of 500 ms is longer than the wall budget of 0.3 s");
}

// Every refusal happens before anything is created or started.
TEST_F(MeasureTest, RefusalsLeaveNoDirectory) {
  const double Inf = std::numeric_limits<double>::infinity();
  const double NaN = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::pair<std::string, MeasureOptions>> Cases;
  auto Add = [&](const std::string &Name, auto Mutate) {
    MeasureOptions O = opts({"stray", path("must-not-exist")});
    Mutate(O);
    Cases.push_back({Name, O});
  };
  Add("empty argv", [](MeasureOptions &O) { O.argv.clear(); });
  Add("NUL in argument",
      [](MeasureOptions &O) { O.argv.push_back(std::string("a\0b", 3)); });
  Add("NUL in program", [](MeasureOptions &O) { O.argv[0] += '\0'; });
  Add("NUL in env value", [](MeasureOptions &O) {
    O.env.push_back({"K", std::string("v\0w", 3)});
  });
  Add("bad env name", [](MeasureOptions &O) { O.env.push_back({"A=B", "c"}); });
  for (double Bad : {0.0, -1.0, Inf, -Inf, NaN}) {
    Add("wall " + std::to_string(Bad),
        [=](MeasureOptions &O) { O.wallBudgetS = Bad; });
    Add("rss " + std::to_string(Bad),
        [=](MeasureOptions &O) { O.rssBudgetMB = Bad; });
  }
  // A poll interval of 1e6 s would disable the wall budget.
  for (double Bad : {1e6, 1.5, 0.0005, 0.0, NaN, Inf})
    Add("poll " + std::to_string(Bad),
        [=](MeasureOptions &O) { O.pollS = Bad; });
  Add("poll longer than the wall budget", [](MeasureOptions &O) {
    O.wallBudgetS = 0.2;
    O.pollS = 0.5;
  });
  Add("no /proc", [&](MeasureOptions &O) { O.procRoot = path("no-proc"); });
  Add("missing program",
      [](MeasureOptions &O) { O.argv[0] = "q2-no-such-program-xyz"; });
  Add("missing parent",
      [&](MeasureOptions &O) { O.outDir = path("no/such/out"); });
  Add("missing cwd", [&](MeasureOptions &O) { O.cwd = path("nowhere"); });

  for (auto &[Name, O] : Cases) {
    llvm::Error E = validateMeasureOptions(O);
    EXPECT_TRUE(bool(E)) << Name;
    llvm::consumeError(std::move(E));
    auto R = measure(O);
    EXPECT_FALSE(bool(R)) << Name;
    if (!R)
      llvm::consumeError(R.takeError());
    EXPECT_FALSE(llvm::sys::fs::exists(O.outDir)) << Name;
    EXPECT_FALSE(llvm::sys::fs::exists(path("must-not-exist"))) << Name
        << ": the command was started";
  }
}

TEST_F(MeasureTest, ExistingDirectoryIsRefusedAndUntouched) {
  ASSERT_FALSE(llvm::sys::fs::create_directory(path("out")));
  auto R = measure(opts({"stray", path("must-not-exist")}));
  ASSERT_FALSE(bool(R));
  std::string Msg = llvm::toString(R.takeError());
  EXPECT_NE(Msg.find("already exists"), std::string::npos) << Msg;
  EXPECT_FALSE(llvm::sys::fs::exists(path("out/record.json")));
  EXPECT_FALSE(llvm::sys::fs::exists(path("must-not-exist")));
}

TEST(SignalName, Names) {
  EXPECT_EQ(signalName(SIGSEGV), "SIGSEGV");
  EXPECT_EQ(signalName(SIGKILL), "SIGKILL");
  EXPECT_EQ(signalName(SIGABRT), "SIGABRT");
}

} // namespace
