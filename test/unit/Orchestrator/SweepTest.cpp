//===- SweepTest.cpp - Sweeps with stand-in commands -----------------------===//
//
// The real tools (q2-qpe, q2-opt) are replaced by a small shell script that
// logs each invocation and, depending on the point, succeeds, fails, crashes
// or hangs, so that the sweep machinery is tested on its own.
//
//===----------------------------------------------------------------------===//

#include "UnitTestUtil.h"
#include "q2/Orchestrator/Sweep.h"
#include "q2/QPE/QPEMetadata.h"
#include "q2/Support/FileIO.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <Eigen/Dense>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <fstream>
#include <map>
#include <sstream>

using namespace q2::orch;
using nlohmann::json;
namespace profiling = q2::profiling;

namespace {

// The report is a copy of report-<mode>.json next to the script, written
// by SetUp() with the report library: a valid q2.profile/3 report.
const char *const Stub = R"(#!/bin/sh
# stub.sh PHASE MODE N_EST N_TROTTER OUTFILE LOG DELAY
phase=$1; mode=$2; e=$3; t=$4; out=$5; log=$6; delay=$7
echo "$phase $mode-e$e-t$t" >> "$log"
if [ "$phase" = A ]; then echo "module {}" > "$out"; exit 0; fi
sleep "$delay"
case "$e,$t" in
  3,5) echo boom >&2; exit 7;;
  4,3) kill -SEGV $$;;
  4,10) sleep 30;;
  5,5) exit 0;;
  5,7) echo '{"schema": "q2.profile/3", "tool": 7}' > "$out"; exit 0;;
esac
cp "$(dirname "$0")/report-$mode.json" "$out"
)";

/// Stages of the stand-in report: only HLOLowering is a compile stage, so
/// compile_s is 1.0 (not 3.5, the sum over all stages).
profiling::ProfileReport stubReport(const std::string &mode) {
  profiling::ProfileReport r;
  r.input = "prog.mlir";
  q2::qpe::QPEMetadata p;
  p.mode = *q2::qpe::parseMode(mode);
  p.nTerms = 15;
  r.parameters = q2::json::RawObject{q2::qpe::toJSON(p)};
  const std::pair<const char *, profiling::StageKind> kinds[] = {
      {"Input", profiling::StageKind::Input},
      {"HLOLowering", profiling::StageKind::Compile},
      {"Execute", profiling::StageKind::Run}};
  double wall[] = {0.5, 1.0, 2.0};
  for (int i = 0; i < 3; ++i) {
    profiling::StageRecord s;
    s.name = kinds[i].first;
    s.kind = kinds[i].second;
    s.index = i;
    s.wallS = wall[i];
    r.phaseB.stages.push_back(s);
  }
  return r;
}

class SweepTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::ofstream(Tmp + "/stub.sh") << Stub;
    for (const char *mode : {"fixed", "dynamic"}) {
      llvm::Error e = profiling::writeReport(
          Tmp + "/report-" + mode + ".json", stubReport(mode));
      ASSERT_FALSE(bool(e)) << llvm::toString(std::move(e));
    }
  }
  SweepSpec spec(const std::string &grid, std::vector<std::string> modes,
                 const std::string &delay = "0") {
    SweepSpec s;
    s.outDir = Tmp + "/sweep";
    auto g = parseGrid(grid);
    EXPECT_TRUE(bool(g));
    s.grid = *g;
    s.modes = modes;
    s.molecules = {{"h2", Tmp + "/h2.FCIDUMP", 0}};
    std::string sh = Tmp + "/stub.sh", log = Tmp + "/log";
    s.commands.phaseA = {"/bin/sh", sh,       "A",   "{mode}", "{n_est}",
                         "{n_trotter}", "{prog}", log, "{delay}"};
    s.commands.phaseBC = {"/bin/sh", sh,         "BC",  "{mode}", "{n_est}",
                          "{n_trotter}", "{report}", log, "{delay}"};
    s.vars["delay"] = delay;
    s.phase.wallBudgetS = 1.0;
    s.phase.rssBudgetMB = 500;
    s.phase.killGraceS = 0.3;
    return s;
  }

  /// How often each "PHASE key" line appears in the stub's log.
  std::map<std::string, int> logCounts() {
    std::map<std::string, int> c;
    std::ifstream in(Tmp + "/log");
    std::string line;
    while (std::getline(in, line))
      ++c[line];
    return c;
  }

  json readJson(const std::string &p) {
    auto buf = llvm::MemoryBuffer::getFile(p);
    EXPECT_TRUE(bool(buf)) << p;
    return buf ? json::parse((*buf)->getBuffer().str()) : json();
  }

  q2::test::TempDir TmpDir{"q2-sweep"};
  std::string Tmp = TmpDir.path;
};

TEST_F(SweepTest, FailuresAreRecordedAndTheSweepGoesOn) {
  SweepSpec s = spec("2x1,3x5,4x3,4x10,5x5", {"fixed"});
  auto sum = runSweep(s);
  ASSERT_TRUE(bool(sum)) << llvm::toString(sum.takeError());
  ASSERT_EQ(sum->points.size(), 5u);
  EXPECT_EQ(sum->ran, 5u);
  EXPECT_EQ(sum->failed, 4u);
  std::map<std::string, PointRecord> r;
  for (const auto &p : sum->points) {
    // What is on disk is what was returned.
    std::string file = s.outDir + "/points/" + p.id.key() + "/result.json";
    auto disk = readPointRecord(file);
    ASSERT_TRUE(bool(disk)) << llvm::toString(disk.takeError());
    EXPECT_EQ(toJSONText(*disk), toJSONText(p.record));
    EXPECT_EQ(readJson(file)["schema"], "q2.sweep.point/1");
    r[p.id.key()] = *disk;
  }
  PointRecord &ok = r["h2-fixed-e2-t1"];
  EXPECT_EQ(ok.status, "ok");
  ASSERT_TRUE(ok.nTerms.has_value());
  EXPECT_EQ(*ok.nTerms, 15u); // Learned from the report.
  ASSERT_TRUE(ok.x.has_value());
  EXPECT_DOUBLE_EQ(*ok.x, 2 * 1 * 15);
  ASSERT_TRUE(ok.report && ok.report->parameters);
  auto md = q2::qpe::fromJSON(ok.report->parameters->text, "parameters");
  ASSERT_TRUE(bool(md)) << llvm::toString(md.takeError());
  EXPECT_EQ(md->mode, q2::qpe::Mode::Fixed);
  ASSERT_TRUE(ok.phases.a.has_value());
  EXPECT_EQ(ok.phases.a->reason, StopReason::Exit);
  // The compile stages only, not Input and Execute.
  ASSERT_TRUE(ok.compileSeconds().has_value());
  EXPECT_DOUBLE_EQ(*ok.compileSeconds(), 1.0);

  PointRecord &exit7 = r["h2-fixed-e3-t5"];
  EXPECT_EQ(exit7.status, "failed");
  EXPECT_EQ(exit7.failedPhase, "BC");
  EXPECT_EQ(exit7.reason, "exit");
  ASSERT_TRUE(exit7.phases.bc.has_value());
  EXPECT_EQ(exit7.phases.bc->exitCode, 7);
  EXPECT_FALSE(exit7.compileSeconds().has_value());

  PointRecord &segv = r["h2-fixed-e4-t3"];
  EXPECT_EQ(segv.reason, "signal");
  ASSERT_TRUE(segv.phases.bc.has_value());
  EXPECT_EQ(segv.phases.bc->signalName, "SIGSEGV");

  PointRecord &hang = r["h2-fixed-e4-t10"];
  EXPECT_EQ(hang.reason, "wall_budget");

  PointRecord &noReport = r["h2-fixed-e5-t5"];
  EXPECT_EQ(noReport.reason, "no_report");

  // Summary files: a header and one row per point.
  std::ifstream csv(s.outDir + "/summary.csv");
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(csv, line))
    lines.push_back(line);
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[0].rfind("key,molecule,mode,n_est,n_trotter,n_terms,x,"
                           "status,failed_phase,reason,exit_code,signal",
                           0),
            0u);
  EXPECT_NE(lines[3].find("SIGSEGV"), std::string::npos) << lines[3];
  // compile_s of the ok point: 1.000, the compile stages only.
  EXPECT_EQ(lines[1].rfind("h2-fixed-e2-t1,h2,fixed,2,1,15,30,ok,,exit,,,1.000,",
                           0),
            0u)
      << lines[1];
  EXPECT_TRUE(llvm::sys::fs::exists(s.outDir + "/summary.txt"));
  EXPECT_TRUE(llvm::sys::fs::exists(s.outDir + "/sweep.json"));
}

TEST_F(SweepTest, InterruptedSweepResumesWithoutRerunningFinishedPoints) {
  SweepSpec s = spec("2x1,2x3,2x5,3x3", {"fixed", "dynamic"});
  std::atomic<bool> cancel{false};
  s.cancel = &cancel;
  int finished = 0;
  auto first = runSweep(s, [&](const ProgressEvent &e) {
    if (e.kind == ProgressEvent::Finished && ++finished == 3)
      cancel = true;
  });
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  EXPECT_TRUE(first->cancelled);
  EXPECT_EQ(first->ran, 3u);
  std::vector<std::string> done;
  for (const auto &id : enumeratePoints(s))
    if (llvm::sys::fs::exists(s.outDir + "/points/" + id.key() +
                              "/result.json"))
      done.push_back(id.key());
  ASSERT_EQ(done.size(), 3u);
  // What a kill in the middle of a point leaves: a directory, no result.
  std::string partial = s.outDir + "/points/h2-dynamic-e3-t3";
  ASSERT_FALSE(llvm::sys::fs::create_directories(partial + "/A"));

  cancel = false;
  std::vector<std::string> skipped;
  auto second = runSweep(s, [&](const ProgressEvent &e) {
    if (e.kind == ProgressEvent::Skipped)
      skipped.push_back(e.point.key());
  });
  ASSERT_TRUE(bool(second)) << llvm::toString(second.takeError());
  EXPECT_FALSE(second->cancelled);
  EXPECT_EQ(second->skipped, 3u);
  EXPECT_EQ(second->ran, 5u);
  EXPECT_EQ(skipped, done);
  // Every point's Phase B+C ran exactly once over both runs.
  auto counts = logCounts();
  for (const auto &id : enumeratePoints(s))
    EXPECT_EQ(counts["BC " + id.mode + "-e" + std::to_string(id.nEst) + "-t" +
                     std::to_string(id.nTrotter)],
              1)
        << id.key();
  for (const auto &p : second->points)
    EXPECT_EQ(p.status(), "ok") << p.id.key();

  // A third run does nothing.
  auto third = runSweep(s);
  ASSERT_TRUE(bool(third));
  EXPECT_EQ(third->ran, 0u);
  EXPECT_EQ(third->skipped, 8u);
}

TEST_F(SweepTest, FailedPointsAreSkippedUnlessRetried) {
  SweepSpec s = spec("3x5", {"fixed"});
  ASSERT_TRUE(bool(runSweep(s)));
  auto again = runSweep(s);
  ASSERT_TRUE(bool(again));
  EXPECT_EQ(again->skipped, 1u);
  s.retryFailed = true;
  auto retry = runSweep(s);
  ASSERT_TRUE(bool(retry));
  EXPECT_EQ(retry->ran, 1u);
  EXPECT_EQ(logCounts()["BC fixed-e3-t5"], 2);
}

TEST_F(SweepTest, AdmissionControlHoldsBackPointsThatDoNotFit) {
  // Before two points are known, each point is predicted to need its whole
  // budget (100 MB): with 150 MB for all, points run one at a time. The
  // stand-ins need a few MB, so once fitted two run together.
  SweepSpec s = spec("2x1,2x3,2x5,3x3,3x5", {"fixed"}, "0.3");
  s.grid[4] = {3, 4}; // No failing stand-in case.
  s.jobs = 2;
  s.phase.rssBudgetMB = 100;
  s.totalRssMB = 150;
  std::vector<size_t> runningAtStart;
  std::vector<double> predicted;
  auto sum = runSweep(s, [&](const ProgressEvent &e) {
    if (e.kind == ProgressEvent::Started) {
      runningAtStart.push_back(e.running);
      predicted.push_back(e.predictedRssMB);
    }
  });
  ASSERT_TRUE(bool(sum)) << llvm::toString(sum.takeError());
  EXPECT_EQ(sum->failed, 0u);
  for (const auto &p : sum->points)
    EXPECT_EQ(p.status(), "ok") << toJSONText(p.record);
  ASSERT_EQ(runningAtStart.size(), 5u);
  EXPECT_EQ(runningAtStart[0], 1u);
  EXPECT_EQ(runningAtStart[1], 1u);
  EXPECT_DOUBLE_EQ(predicted[0], 100.0);
  EXPECT_DOUBLE_EQ(predicted[1], 100.0);
  EXPECT_LT(predicted[2], 50.0);
  EXPECT_EQ(*std::max_element(runningAtStart.begin(), runningAtStart.end()),
            2u);

  // With room for two conservative predictions, the first two overlap.
  SweepSpec t = spec("2x1,2x3", {"fixed"}, "0.3");
  t.outDir = Tmp + "/sweep2";
  t.jobs = 2;
  t.phase.rssBudgetMB = 100;
  t.totalRssMB = 250;
  runningAtStart.clear();
  auto sum2 = runSweep(t, [&](const ProgressEvent &e) {
    if (e.kind == ProgressEvent::Started)
      runningAtStart.push_back(e.running);
  });
  ASSERT_TRUE(bool(sum2));
  ASSERT_EQ(runningAtStart.size(), 2u);
  EXPECT_EQ(runningAtStart[1], 2u);
}

TEST_F(SweepTest, MissingToolIsRecordedNotFatal) {
  SweepSpec s = spec("2x1", {"fixed"});
  s.commands.phaseA = {"q2-no-such-tool-xyz", "{ham}"};
  auto sum = runSweep(s);
  ASSERT_TRUE(bool(sum)) << llvm::toString(sum.takeError());
  ASSERT_EQ(sum->points.size(), 1u);
  EXPECT_EQ(sum->points[0].record.reason, "refused");
  EXPECT_EQ(sum->points[0].record.failedPhase, "A");
}

TEST_F(SweepTest, MergeCombinesDirectories) {
  SweepSpec a = spec("2x1", {"fixed"});
  a.outDir = Tmp + "/a";
  SweepSpec b = spec("2x3", {"fixed", "dynamic"});
  b.outDir = Tmp + "/b";
  ASSERT_TRUE(bool(runSweep(a)));
  ASSERT_TRUE(bool(runSweep(b)));
  auto all = loadResults({a.outDir, b.outDir});
  ASSERT_TRUE(bool(all)) << llvm::toString(all.takeError());
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].key, "h2-fixed-e2-t1");
  EXPECT_EQ((*all)[1].key, "h2-dynamic-e2-t3");
  EXPECT_EQ((*all)[2].key, "h2-fixed-e2-t3");

  // The same point with a different outcome in two places is a conflict.
  SweepSpec c = spec("3x5", {"fixed"});
  c.outDir = Tmp + "/c";
  ASSERT_TRUE(bool(runSweep(c)));
  std::string src = c.outDir + "/points/h2-fixed-e3-t5/result.json";
  json j = readJson(src);
  j["key"] = "h2-fixed-e2-t1";
  std::ofstream(src) << j.dump();
  auto conflict = loadResults({a.outDir, c.outDir});
  ASSERT_FALSE(bool(conflict));
  EXPECT_NE(llvm::toString(conflict.takeError()).find("h2-fixed-e2-t1"),
            std::string::npos);
  auto nothing = loadResults({Tmp + "/nothing"});
  EXPECT_FALSE(bool(nothing));
  if (!nothing)
    llvm::consumeError(nothing.takeError());
}

TEST_F(SweepTest, MalformedReportIsThePointsFailure) {
  SweepSpec s = spec("5x7", {"fixed"});
  auto sum = runSweep(s);
  ASSERT_TRUE(bool(sum)) << llvm::toString(sum.takeError());
  ASSERT_EQ(sum->points.size(), 1u);
  const PointRecord &r = sum->points[0].record;
  EXPECT_EQ(r.status, "failed");
  EXPECT_EQ(r.failedPhase, "BC");
  EXPECT_EQ(r.reason, "bad_report");
  ASSERT_TRUE(r.message.has_value());
  // The message names the file and the key.
  EXPECT_NE(r.message->find(s.outDir + "/points/h2-fixed-e5-t7/report.json"),
            std::string::npos)
      << *r.message;
  EXPECT_NE(r.message->find("tool: expected a string"), std::string::npos)
      << *r.message;
  EXPECT_FALSE(r.report.has_value());
}

TEST_F(SweepTest, MergeRefusesResultsOfTheWrongShape) {
  SweepSpec a = spec("2x1", {"fixed"});
  ASSERT_TRUE(bool(runSweep(a)));
  std::string file = a.outDir + "/points/h2-fixed-e2-t1/result.json";
  json good = readJson(file);
  auto expect = [&](const std::string &text, const std::string &what) {
    std::ofstream(file) << text;
    auto r = loadResults({a.outDir});
    ASSERT_FALSE(bool(r)) << text;
    std::string msg = llvm::toString(r.takeError());
    EXPECT_NE(msg.find(file), std::string::npos) << msg;
    EXPECT_NE(msg.find(what), std::string::npos) << msg;
  };
  expect("[]", "expected an object");
  json j = good;
  j["n_est"] = "2";
  expect(j.dump(), "n_est: expected an integer, got string");
  j = good;
  j["phases"]["BC"]["wall_s"] = json::array();
  expect(j.dump(), "phases.BC.wall_s: expected a number");
  j = good;
  j["report"]["phase_b"]["stages"][1]["wall_s"] = "fast";
  expect(j.dump(), "report.phase_b.stages[1].wall_s: expected a number");
  j = good;
  j["schema"] = "q2.sweep.point/0";
  expect(j.dump(), "schema");
  expect("{", "invalid JSON");
}

TEST_F(SweepTest, CollidingKeysAreRefused) {
  SweepSpec s = spec("2x1", {"fixed"});
  s.molecules = {{"h2+", Tmp + "/a.FCIDUMP", 0}, {"h2p", Tmp + "/b.FCIDUMP", 0}};
  auto sum = runSweep(s);
  ASSERT_FALSE(bool(sum));
  std::string msg = llvm::toString(sum.takeError());
  EXPECT_NE(msg.find("'h2+'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'h2p'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("h2p-fixed-e2-t1"), std::string::npos) << msg;
  // Refused before anything was created or run.
  EXPECT_FALSE(llvm::sys::fs::exists(s.outDir));
  EXPECT_TRUE(logCounts().empty());

  // Also when `only` picks one of them (an emitted job of such a sweep).
  s.only = {"h2p-fixed-e2-t1"};
  llvm::Error e = validateSweepSpec(s);
  EXPECT_TRUE(bool(e));
  llvm::consumeError(std::move(e));

  // A grid point, mode or molecule given twice.
  for (auto mutate : std::vector<std::function<void(SweepSpec &)>>{
           [](SweepSpec &t) { t.grid.push_back(t.grid[0]); },
           [](SweepSpec &t) { t.modes.push_back(t.modes[0]); },
           [](SweepSpec &t) { t.molecules.push_back(t.molecules[0]); }}) {
    SweepSpec t = spec("2x1", {"fixed"});
    mutate(t);
    llvm::Error e = validateSweepSpec(t);
    ASSERT_TRUE(bool(e));
    std::string msg = llvm::toString(std::move(e));
    EXPECT_NE(msg.find("appears twice"), std::string::npos) << msg;
  }
  // Different molecules and modes that spell the same key.
  SweepSpec u = spec("2x1", {"b-c", "c"});
  u.molecules = {{"a", Tmp + "/a", 0}, {"a-b", Tmp + "/b", 0}};
  llvm::Error eu = validateSweepSpec(u);
  ASSERT_TRUE(bool(eu));
  msg = llvm::toString(std::move(eu));
  EXPECT_NE(msg.find("a-b-c-e2-t1"), std::string::npos) << msg;
}

TEST_F(SweepTest, ASecondSweepOnTheSameDirectoryIsRefused) {
  SweepSpec s = spec("2x1", {"fixed"});
  // What the other sweep is running right now.
  std::string running = s.outDir + "/points/h2-fixed-e2-t1";
  ASSERT_FALSE(llvm::sys::fs::create_directories(running + "/A"));
  {
    auto other = q2::FileLock::acquire(s.outDir + "/.lock");
    ASSERT_TRUE(bool(other)) << llvm::toString(other.takeError());
    auto sum = runSweep(s);
    ASSERT_FALSE(bool(sum));
    std::string msg = llvm::toString(sum.takeError());
    EXPECT_NE(msg.find("sweep directory '" + s.outDir + "'"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("in use by another process"), std::string::npos)
        << msg;
    EXPECT_TRUE(llvm::sys::fs::exists(running + "/A"));
    EXPECT_TRUE(logCounts().empty());
  }
  // Once the other is gone, the sweep runs (and redoes the partial point).
  auto sum = runSweep(s);
  ASSERT_TRUE(bool(sum)) << llvm::toString(sum.takeError());
  EXPECT_EQ(sum->ran, 1u);
  EXPECT_TRUE(llvm::sys::fs::exists(running + "/result.json"));
}

TEST_F(SweepTest, JobsShareADirectoryButNeverAPoint) {
  SweepSpec s = spec("2x1,2x3", {"fixed"});
  std::string busy = s.outDir + "/points/h2-fixed-e2-t1";
  ASSERT_FALSE(llvm::sys::fs::create_directories(busy + "/A"));
  auto other = q2::FileLock::acquire(busy + ".lock");
  ASSERT_TRUE(bool(other)) << llvm::toString(other.takeError());
  // Another job's point is locked: this job's point runs.
  SweepSpec mine = s;
  mine.only = {"h2-fixed-e2-t3"};
  auto sum = runSweep(mine);
  ASSERT_TRUE(bool(sum)) << llvm::toString(sum.takeError());
  ASSERT_EQ(sum->points.size(), 1u);
  EXPECT_EQ(sum->points[0].status(), "ok");
  // The locked point is refused, not removed.
  SweepSpec same = s;
  same.only = {"h2-fixed-e2-t1"};
  auto clash = runSweep(same);
  ASSERT_TRUE(bool(clash)) << llvm::toString(clash.takeError());
  ASSERT_EQ(clash->points.size(), 1u);
  const PointRecord &r = clash->points[0].record;
  EXPECT_EQ(r.status, "failed");
  EXPECT_EQ(r.reason, "error");
  ASSERT_TRUE(r.message.has_value());
  EXPECT_NE(r.message->find("point 'h2-fixed-e2-t1' is in use by another "
                            "process"),
            std::string::npos)
      << *r.message;
  EXPECT_TRUE(llvm::sys::fs::exists(busy + "/A"));
  EXPECT_EQ(logCounts().count("A fixed-e2-t1"), 0u);
  EXPECT_FALSE(llvm::sys::fs::exists(busy + "/result.json"));
}

/// A pid that no process has: above the kernel's pid_max.
long deadPid() {
  std::ifstream in("/proc/sys/kernel/pid_max");
  long max = 0;
  in >> max;
  return (max > 0 ? max : 4194304) + 1;
}

TEST_F(SweepTest, ResumeRemovesTemporariesOfDeadWriters) {
  SweepSpec s = spec("2x1", {"fixed"});
  ASSERT_TRUE(bool(runSweep(s)));
  std::string dir = s.outDir + "/points/h2-fixed-e2-t1";
  std::string dead = std::to_string(deadPid());
  // A q2-opt killed while writing its report, a q2-profile killed while
  // writing a result or a phase record; and a writer that is still alive.
  std::vector<std::string> stale = {
      dir + "/report.json.q2tmp-" + dead + "-0",
      dir + "/result.json.q2tmp-" + dead + "-3",
      dir + "/BC/record.json.q2tmp-" + dead + "-1"};
  std::string live = dir + "/report.json.q2tmp-1-0";
  for (const auto &f : stale)
    std::ofstream(f) << "partial";
  std::ofstream(live) << "being written";
  for (const auto &f : stale)
    ASSERT_TRUE(q2::isTemporaryName(llvm::sys::path::filename(f))) << f;

  auto again = runSweep(s);
  ASSERT_TRUE(bool(again)) << llvm::toString(again.takeError());
  EXPECT_EQ(again->skipped, 1u);
  for (const auto &f : stale)
    EXPECT_FALSE(llvm::sys::fs::exists(f)) << f;
  EXPECT_TRUE(llvm::sys::fs::exists(live));
  EXPECT_TRUE(llvm::sys::fs::exists(dir + "/result.json"));
  EXPECT_TRUE(llvm::sys::fs::exists(dir + "/report.json"));
}

TEST(ExampleData, DefaultMoleculeIsFoundNextToTheExecutable) {
  EXPECT_EQ(examplesDirFor("/opt/q2/bin/q2-profile"),
            "/opt/q2/share/q2/examples");
  auto missing = defaultMolecule("/nonexistent/share/q2/examples");
  ASSERT_FALSE(bool(missing));
  std::string msg = llvm::toString(missing.takeError());
  EXPECT_NE(msg.find("/nonexistent/share/q2/examples/hamiltonians/"
                     "h2_0.7414.FCIDUMP"),
            std::string::npos)
      << msg;
}

TEST(PeakRssModel, MatchesAnIndependentLeastSquaresFit) {
  std::vector<double> x = {30, 90, 150, 135, 225, 600};
  std::vector<double> y = {120.5, 180.1, 260.7, 230.2, 330.9, 801.0};
  PeakRssModel m(4000, 4000);
  EXPECT_FALSE(m.fitted());
  EXPECT_DOUBLE_EQ(m.predict(100), 4000);
  m.add(x[0], y[0]);
  EXPECT_FALSE(m.fitted()); // One point determines no line.
  m.add(x[0], y[0] + 5);
  EXPECT_FALSE(m.fitted()); // Nor do two at the same x.
  PeakRssModel n(4000, 4000);
  for (size_t i = 0; i < x.size(); ++i)
    n.add(x[i], y[i]);
  ASSERT_TRUE(n.fitted());

  Eigen::MatrixXd a(x.size(), 2);
  Eigen::VectorXd b(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    a(i, 0) = 1;
    a(i, 1) = x[i];
    b(i) = y[i];
  }
  Eigen::Vector2d coef = a.colPivHouseholderQr().solve(b);
  EXPECT_NEAR(n.intercept(), coef(0), 1e-9 * std::abs(coef(0)));
  EXPECT_NEAR(n.slope(), coef(1), 1e-9 * std::abs(coef(1)));

  // 25% margin over the line, never below a peak already seen at a smaller
  // x, never above the cap.
  double line = coef(0) + coef(1) * 300;
  EXPECT_NEAR(n.predict(300), std::max(1.25 * line, 330.9), 1e-6);
  PeakRssModel capped(4000, 500);
  for (size_t i = 0; i < x.size(); ++i)
    capped.add(x[i], y[i]);
  EXPECT_DOUBLE_EQ(capped.predict(10000), 500);
}

TEST(Grid, ParseAndDefaults) {
  auto g = parseGrid("2x1, 4x10");
  ASSERT_TRUE(bool(g));
  ASSERT_EQ(g->size(), 2u);
  EXPECT_EQ((*g)[1].nEst, 4u);
  EXPECT_EQ((*g)[1].nTrotter, 10u);
  for (const char *bad : {"", "2", "2x", "x3", "0x1", "2x0", "2x1,a"}) {
    auto e = parseGrid(bad);
    EXPECT_FALSE(bool(e)) << bad;
    if (!e)
      llvm::consumeError(e.takeError());
  }
  auto d = defaultH2Grid();
  ASSERT_EQ(d.size(), 8u);
  EXPECT_EQ(d.back().nEst, 4u);
  EXPECT_EQ(d.back().nTrotter, 10u);

  SweepSpec s;
  s.molecules = {{"H3O+", "f", 0}, {"h2", "g", 15}};
  auto ids = enumeratePoints(s);
  EXPECT_EQ(ids.size(), 2u * 8u * 2u);
  EXPECT_EQ(ids[0].key(), "H3Op-fixed-e2-t1");
  EXPECT_EQ(ids[1].key(), "H3Op-dynamic-e2-t1");
  s.only = {"h2-dynamic-e4-t10"};
  ASSERT_EQ(enumeratePoints(s).size(), 1u);
}

} // namespace
