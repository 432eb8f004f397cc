//===- SweepTest.cpp - Sweeps with stand-in commands -----------------------===//
//
// The real tools (q2-qpe, q2-opt) are replaced by a small shell script that
// logs each invocation and, depending on the point, succeeds, fails, crashes
// or hangs, so that the sweep machinery is tested on its own.
//
//===----------------------------------------------------------------------===//

#include "UnitTestUtil.h"
#include "q2/Orchestrator/Sweep.h"
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
profiling::ProfileReport stubReport(const std::string &Mode) {
  profiling::ProfileReport R;
  R.input = "prog.mlir";
  q2::qpe::QPEMetadata P;
  P.mode = *q2::qpe::parseMode(Mode);
  P.nTerms = 15;
  R.parameters = P;
  const std::pair<const char *, profiling::StageKind> Kinds[] = {
      {"Input", profiling::StageKind::Input},
      {"HLOLowering", profiling::StageKind::Compile},
      {"Execute", profiling::StageKind::Run}};
  double Wall[] = {0.5, 1.0, 2.0};
  for (int I = 0; I < 3; ++I) {
    profiling::StageRecord S;
    S.name = Kinds[I].first;
    S.kind = Kinds[I].second;
    S.index = I;
    S.wallS = Wall[I];
    R.phaseB.stages.push_back(S);
  }
  return R;
}

class SweepTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::ofstream(Tmp + "/stub.sh") << Stub;
    for (const char *Mode : {"fixed", "dynamic"}) {
      llvm::Error E = profiling::writeReport(
          Tmp + "/report-" + Mode + ".json", stubReport(Mode));
      ASSERT_FALSE(bool(E)) << llvm::toString(std::move(E));
    }
  }
  SweepSpec spec(const std::string &Grid, std::vector<std::string> Modes,
                 const std::string &Delay = "0") {
    SweepSpec S;
    S.outDir = Tmp + "/sweep";
    auto G = parseGrid(Grid);
    EXPECT_TRUE(bool(G));
    S.grid = *G;
    S.modes = Modes;
    S.molecules = {{"h2", Tmp + "/h2.FCIDUMP", 0}};
    std::string Sh = Tmp + "/stub.sh", Log = Tmp + "/log";
    S.commands.phaseA = {"/bin/sh", Sh,       "A",   "{mode}", "{n_est}",
                         "{n_trotter}", "{prog}", Log, "{delay}"};
    S.commands.phaseBC = {"/bin/sh", Sh,         "BC",  "{mode}", "{n_est}",
                          "{n_trotter}", "{report}", Log, "{delay}"};
    S.vars["delay"] = Delay;
    S.phase.wallBudgetS = 1.0;
    S.phase.rssBudgetMB = 500;
    S.phase.killGraceS = 0.3;
    return S;
  }

  /// How often each "PHASE key" line appears in the stub's log.
  std::map<std::string, int> logCounts() {
    std::map<std::string, int> C;
    std::ifstream In(Tmp + "/log");
    std::string Line;
    while (std::getline(In, Line))
      ++C[Line];
    return C;
  }

  json readJson(const std::string &P) {
    auto Buf = llvm::MemoryBuffer::getFile(P);
    EXPECT_TRUE(bool(Buf)) << P;
    return Buf ? json::parse((*Buf)->getBuffer().str()) : json();
  }

  q2::test::TempDir TmpDir{"q2-sweep"};
  std::string Tmp = TmpDir.path;
};

TEST_F(SweepTest, FailuresAreRecordedAndTheSweepGoesOn) {
  SweepSpec S = spec("2x1,3x5,4x3,4x10,5x5", {"fixed"});
  auto Sum = runSweep(S);
  ASSERT_TRUE(bool(Sum)) << llvm::toString(Sum.takeError());
  ASSERT_EQ(Sum->points.size(), 5u);
  EXPECT_EQ(Sum->ran, 5u);
  EXPECT_EQ(Sum->failed, 4u);
  std::map<std::string, PointRecord> R;
  for (const auto &P : Sum->points) {
    // What is on disk is what was returned.
    std::string File = S.outDir + "/points/" + P.id.key() + "/result.json";
    auto Disk = readPointRecord(File);
    ASSERT_TRUE(bool(Disk)) << llvm::toString(Disk.takeError());
    EXPECT_EQ(toJSONText(*Disk), toJSONText(P.record));
    EXPECT_EQ(readJson(File)["schema"], "q2.sweep.point/1");
    R[P.id.key()] = *Disk;
  }
  PointRecord &Ok = R["h2-fixed-e2-t1"];
  EXPECT_EQ(Ok.status, "ok");
  ASSERT_TRUE(Ok.nTerms.has_value());
  EXPECT_EQ(*Ok.nTerms, 15u); // Learned from the report.
  ASSERT_TRUE(Ok.x.has_value());
  EXPECT_DOUBLE_EQ(*Ok.x, 2 * 1 * 15);
  ASSERT_TRUE(Ok.report && Ok.report->parameters);
  EXPECT_EQ(Ok.report->parameters->mode, q2::qpe::Mode::Fixed);
  ASSERT_TRUE(Ok.phases.a.has_value());
  EXPECT_EQ(Ok.phases.a->reason, StopReason::Exit);
  // The compile stages only, not Input and Execute.
  ASSERT_TRUE(Ok.compileSeconds().has_value());
  EXPECT_DOUBLE_EQ(*Ok.compileSeconds(), 1.0);

  PointRecord &Exit7 = R["h2-fixed-e3-t5"];
  EXPECT_EQ(Exit7.status, "failed");
  EXPECT_EQ(Exit7.failedPhase, "BC");
  EXPECT_EQ(Exit7.reason, "exit");
  ASSERT_TRUE(Exit7.phases.bc.has_value());
  EXPECT_EQ(Exit7.phases.bc->exitCode, 7);
  EXPECT_FALSE(Exit7.compileSeconds().has_value());

  PointRecord &Segv = R["h2-fixed-e4-t3"];
  EXPECT_EQ(Segv.reason, "signal");
  ASSERT_TRUE(Segv.phases.bc.has_value());
  EXPECT_EQ(Segv.phases.bc->signalName, "SIGSEGV");

  PointRecord &Hang = R["h2-fixed-e4-t10"];
  EXPECT_EQ(Hang.reason, "wall_budget");

  PointRecord &NoReport = R["h2-fixed-e5-t5"];
  EXPECT_EQ(NoReport.reason, "no_report");

  // Summary files: a header and one row per point.
  std::ifstream Csv(S.outDir + "/summary.csv");
  std::string Line;
  std::vector<std::string> Lines;
  while (std::getline(Csv, Line))
    Lines.push_back(Line);
  ASSERT_EQ(Lines.size(), 6u);
  EXPECT_EQ(Lines[0].rfind("key,molecule,mode,n_est,n_trotter,n_terms,x,"
                           "status,failed_phase,reason,exit_code,signal",
                           0),
            0u);
  EXPECT_NE(Lines[3].find("SIGSEGV"), std::string::npos) << Lines[3];
  // compile_s of the ok point: 1.000, the compile stages only.
  EXPECT_EQ(Lines[1].rfind("h2-fixed-e2-t1,h2,fixed,2,1,15,30,ok,,exit,,,1.000,",
                           0),
            0u)
      << Lines[1];
  EXPECT_TRUE(llvm::sys::fs::exists(S.outDir + "/summary.txt"));
  EXPECT_TRUE(llvm::sys::fs::exists(S.outDir + "/sweep.json"));
}

TEST_F(SweepTest, InterruptedSweepResumesWithoutRerunningFinishedPoints) {
  SweepSpec S = spec("2x1,2x3,2x5,3x3", {"fixed", "dynamic"});
  std::atomic<bool> Cancel{false};
  S.cancel = &Cancel;
  int Finished = 0;
  auto First = runSweep(S, [&](const ProgressEvent &E) {
    if (E.kind == ProgressEvent::Finished && ++Finished == 3)
      Cancel = true;
  });
  ASSERT_TRUE(bool(First)) << llvm::toString(First.takeError());
  EXPECT_TRUE(First->cancelled);
  EXPECT_EQ(First->ran, 3u);
  std::vector<std::string> Done;
  for (const auto &Id : enumeratePoints(S))
    if (llvm::sys::fs::exists(S.outDir + "/points/" + Id.key() +
                              "/result.json"))
      Done.push_back(Id.key());
  ASSERT_EQ(Done.size(), 3u);
  // What a kill in the middle of a point leaves: a directory, no result.
  std::string Partial = S.outDir + "/points/h2-dynamic-e3-t3";
  ASSERT_FALSE(llvm::sys::fs::create_directories(Partial + "/A"));

  Cancel = false;
  std::vector<std::string> Skipped;
  auto Second = runSweep(S, [&](const ProgressEvent &E) {
    if (E.kind == ProgressEvent::Skipped)
      Skipped.push_back(E.point.key());
  });
  ASSERT_TRUE(bool(Second)) << llvm::toString(Second.takeError());
  EXPECT_FALSE(Second->cancelled);
  EXPECT_EQ(Second->skipped, 3u);
  EXPECT_EQ(Second->ran, 5u);
  EXPECT_EQ(Skipped, Done);
  // Every point's Phase B+C ran exactly once over both runs.
  auto Counts = logCounts();
  for (const auto &Id : enumeratePoints(S))
    EXPECT_EQ(Counts["BC " + Id.mode + "-e" + std::to_string(Id.nEst) + "-t" +
                     std::to_string(Id.nTrotter)],
              1)
        << Id.key();
  for (const auto &P : Second->points)
    EXPECT_EQ(P.status(), "ok") << P.id.key();

  // A third run does nothing.
  auto Third = runSweep(S);
  ASSERT_TRUE(bool(Third));
  EXPECT_EQ(Third->ran, 0u);
  EXPECT_EQ(Third->skipped, 8u);
}

TEST_F(SweepTest, FailedPointsAreSkippedUnlessRetried) {
  SweepSpec S = spec("3x5", {"fixed"});
  ASSERT_TRUE(bool(runSweep(S)));
  auto Again = runSweep(S);
  ASSERT_TRUE(bool(Again));
  EXPECT_EQ(Again->skipped, 1u);
  S.retryFailed = true;
  auto Retry = runSweep(S);
  ASSERT_TRUE(bool(Retry));
  EXPECT_EQ(Retry->ran, 1u);
  EXPECT_EQ(logCounts()["BC fixed-e3-t5"], 2);
}

TEST_F(SweepTest, AdmissionControlHoldsBackPointsThatDoNotFit) {
  // Before two points are known, each point is predicted to need its whole
  // budget (100 MB): with 150 MB for all, points run one at a time. The
  // stand-ins need a few MB, so once fitted two run together.
  SweepSpec S = spec("2x1,2x3,2x5,3x3,3x5", {"fixed"}, "0.3");
  S.grid[4] = {3, 4}; // No failing stand-in case.
  S.jobs = 2;
  S.phase.rssBudgetMB = 100;
  S.totalRssMB = 150;
  std::vector<size_t> RunningAtStart;
  std::vector<double> Predicted;
  auto Sum = runSweep(S, [&](const ProgressEvent &E) {
    if (E.kind == ProgressEvent::Started) {
      RunningAtStart.push_back(E.running);
      Predicted.push_back(E.predictedRssMB);
    }
  });
  ASSERT_TRUE(bool(Sum)) << llvm::toString(Sum.takeError());
  EXPECT_EQ(Sum->failed, 0u);
  for (const auto &P : Sum->points)
    EXPECT_EQ(P.status(), "ok") << toJSONText(P.record);
  ASSERT_EQ(RunningAtStart.size(), 5u);
  EXPECT_EQ(RunningAtStart[0], 1u);
  EXPECT_EQ(RunningAtStart[1], 1u);
  EXPECT_DOUBLE_EQ(Predicted[0], 100.0);
  EXPECT_DOUBLE_EQ(Predicted[1], 100.0);
  EXPECT_LT(Predicted[2], 50.0);
  EXPECT_EQ(*std::max_element(RunningAtStart.begin(), RunningAtStart.end()),
            2u);

  // With room for two conservative predictions, the first two overlap.
  SweepSpec T = spec("2x1,2x3", {"fixed"}, "0.3");
  T.outDir = Tmp + "/sweep2";
  T.jobs = 2;
  T.phase.rssBudgetMB = 100;
  T.totalRssMB = 250;
  RunningAtStart.clear();
  auto Sum2 = runSweep(T, [&](const ProgressEvent &E) {
    if (E.kind == ProgressEvent::Started)
      RunningAtStart.push_back(E.running);
  });
  ASSERT_TRUE(bool(Sum2));
  ASSERT_EQ(RunningAtStart.size(), 2u);
  EXPECT_EQ(RunningAtStart[1], 2u);
}

TEST_F(SweepTest, MissingToolIsRecordedNotFatal) {
  SweepSpec S = spec("2x1", {"fixed"});
  S.commands.phaseA = {"q2-no-such-tool-xyz", "{ham}"};
  auto Sum = runSweep(S);
  ASSERT_TRUE(bool(Sum)) << llvm::toString(Sum.takeError());
  ASSERT_EQ(Sum->points.size(), 1u);
  EXPECT_EQ(Sum->points[0].record.reason, "refused");
  EXPECT_EQ(Sum->points[0].record.failedPhase, "A");
}

TEST_F(SweepTest, MergeCombinesDirectories) {
  SweepSpec A = spec("2x1", {"fixed"});
  A.outDir = Tmp + "/a";
  SweepSpec B = spec("2x3", {"fixed", "dynamic"});
  B.outDir = Tmp + "/b";
  ASSERT_TRUE(bool(runSweep(A)));
  ASSERT_TRUE(bool(runSweep(B)));
  auto All = loadResults({A.outDir, B.outDir});
  ASSERT_TRUE(bool(All)) << llvm::toString(All.takeError());
  ASSERT_EQ(All->size(), 3u);
  EXPECT_EQ((*All)[0].key, "h2-fixed-e2-t1");
  EXPECT_EQ((*All)[1].key, "h2-dynamic-e2-t3");
  EXPECT_EQ((*All)[2].key, "h2-fixed-e2-t3");

  // The same point with a different outcome in two places is a conflict.
  SweepSpec C = spec("3x5", {"fixed"});
  C.outDir = Tmp + "/c";
  ASSERT_TRUE(bool(runSweep(C)));
  std::string Src = C.outDir + "/points/h2-fixed-e3-t5/result.json";
  json J = readJson(Src);
  J["key"] = "h2-fixed-e2-t1";
  std::ofstream(Src) << J.dump();
  auto Conflict = loadResults({A.outDir, C.outDir});
  ASSERT_FALSE(bool(Conflict));
  EXPECT_NE(llvm::toString(Conflict.takeError()).find("h2-fixed-e2-t1"),
            std::string::npos);
  auto Nothing = loadResults({Tmp + "/nothing"});
  EXPECT_FALSE(bool(Nothing));
  if (!Nothing)
    llvm::consumeError(Nothing.takeError());
}

TEST_F(SweepTest, MalformedReportIsThePointsFailure) {
  SweepSpec S = spec("5x7", {"fixed"});
  auto Sum = runSweep(S);
  ASSERT_TRUE(bool(Sum)) << llvm::toString(Sum.takeError());
  ASSERT_EQ(Sum->points.size(), 1u);
  const PointRecord &R = Sum->points[0].record;
  EXPECT_EQ(R.status, "failed");
  EXPECT_EQ(R.failedPhase, "BC");
  EXPECT_EQ(R.reason, "bad_report");
  ASSERT_TRUE(R.message.has_value());
  // The message names the file and the key.
  EXPECT_NE(R.message->find(S.outDir + "/points/h2-fixed-e5-t7/report.json"),
            std::string::npos)
      << *R.message;
  EXPECT_NE(R.message->find("tool: expected a string"), std::string::npos)
      << *R.message;
  EXPECT_FALSE(R.report.has_value());
}

TEST_F(SweepTest, MergeRefusesResultsOfTheWrongShape) {
  SweepSpec A = spec("2x1", {"fixed"});
  ASSERT_TRUE(bool(runSweep(A)));
  std::string File = A.outDir + "/points/h2-fixed-e2-t1/result.json";
  json Good = readJson(File);
  auto Expect = [&](const std::string &Text, const std::string &What) {
    std::ofstream(File) << Text;
    auto R = loadResults({A.outDir});
    ASSERT_FALSE(bool(R)) << Text;
    std::string Msg = llvm::toString(R.takeError());
    EXPECT_NE(Msg.find(File), std::string::npos) << Msg;
    EXPECT_NE(Msg.find(What), std::string::npos) << Msg;
  };
  Expect("[]", "expected an object");
  json J = Good;
  J["n_est"] = "2";
  Expect(J.dump(), "n_est: expected an integer, got string");
  J = Good;
  J["phases"]["BC"]["wall_s"] = json::array();
  Expect(J.dump(), "phases.BC.wall_s: expected a number");
  J = Good;
  J["report"]["phase_b"]["stages"][1]["wall_s"] = "fast";
  Expect(J.dump(), "report.phase_b.stages[1].wall_s: expected a number");
  J = Good;
  J["schema"] = "q2.sweep.point/0";
  Expect(J.dump(), "schema");
  Expect("{", "invalid JSON");
}

TEST_F(SweepTest, CollidingKeysAreRefused) {
  SweepSpec S = spec("2x1", {"fixed"});
  S.molecules = {{"h2+", Tmp + "/a.FCIDUMP", 0}, {"h2p", Tmp + "/b.FCIDUMP", 0}};
  auto Sum = runSweep(S);
  ASSERT_FALSE(bool(Sum));
  std::string Msg = llvm::toString(Sum.takeError());
  EXPECT_NE(Msg.find("'h2+'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("'h2p'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("h2p-fixed-e2-t1"), std::string::npos) << Msg;
  // Refused before anything was created or run.
  EXPECT_FALSE(llvm::sys::fs::exists(S.outDir));
  EXPECT_TRUE(logCounts().empty());

  // Also when `only` picks one of them (an emitted job of such a sweep).
  S.only = {"h2p-fixed-e2-t1"};
  llvm::Error E = validateSweepSpec(S);
  EXPECT_TRUE(bool(E));
  llvm::consumeError(std::move(E));

  // A grid point, mode or molecule given twice.
  for (auto Mutate : std::vector<std::function<void(SweepSpec &)>>{
           [](SweepSpec &T) { T.grid.push_back(T.grid[0]); },
           [](SweepSpec &T) { T.modes.push_back(T.modes[0]); },
           [](SweepSpec &T) { T.molecules.push_back(T.molecules[0]); }}) {
    SweepSpec T = spec("2x1", {"fixed"});
    Mutate(T);
    llvm::Error E = validateSweepSpec(T);
    ASSERT_TRUE(bool(E));
    std::string Msg = llvm::toString(std::move(E));
    EXPECT_NE(Msg.find("appears twice"), std::string::npos) << Msg;
  }
  // Different molecules and modes that spell the same key.
  SweepSpec U = spec("2x1", {"b-c", "c"});
  U.molecules = {{"a", Tmp + "/a", 0}, {"a-b", Tmp + "/b", 0}};
  llvm::Error EU = validateSweepSpec(U);
  ASSERT_TRUE(bool(EU));
  Msg = llvm::toString(std::move(EU));
  EXPECT_NE(Msg.find("a-b-c-e2-t1"), std::string::npos) << Msg;
}

TEST_F(SweepTest, ASecondSweepOnTheSameDirectoryIsRefused) {
  SweepSpec S = spec("2x1", {"fixed"});
  // What the other sweep is running right now.
  std::string Running = S.outDir + "/points/h2-fixed-e2-t1";
  ASSERT_FALSE(llvm::sys::fs::create_directories(Running + "/A"));
  {
    auto Other = q2::FileLock::acquire(S.outDir + "/.lock");
    ASSERT_TRUE(bool(Other)) << llvm::toString(Other.takeError());
    auto Sum = runSweep(S);
    ASSERT_FALSE(bool(Sum));
    std::string Msg = llvm::toString(Sum.takeError());
    EXPECT_NE(Msg.find("sweep directory '" + S.outDir + "'"),
              std::string::npos)
        << Msg;
    EXPECT_NE(Msg.find("in use by another process"), std::string::npos)
        << Msg;
    EXPECT_TRUE(llvm::sys::fs::exists(Running + "/A"));
    EXPECT_TRUE(logCounts().empty());
  }
  // Once the other is gone, the sweep runs (and redoes the partial point).
  auto Sum = runSweep(S);
  ASSERT_TRUE(bool(Sum)) << llvm::toString(Sum.takeError());
  EXPECT_EQ(Sum->ran, 1u);
  EXPECT_TRUE(llvm::sys::fs::exists(Running + "/result.json"));
}

TEST_F(SweepTest, JobsShareADirectoryButNeverAPoint) {
  SweepSpec S = spec("2x1,2x3", {"fixed"});
  std::string Busy = S.outDir + "/points/h2-fixed-e2-t1";
  ASSERT_FALSE(llvm::sys::fs::create_directories(Busy + "/A"));
  auto Other = q2::FileLock::acquire(Busy + ".lock");
  ASSERT_TRUE(bool(Other)) << llvm::toString(Other.takeError());
  // Another job's point is locked: this job's point runs.
  SweepSpec Mine = S;
  Mine.only = {"h2-fixed-e2-t3"};
  auto Sum = runSweep(Mine);
  ASSERT_TRUE(bool(Sum)) << llvm::toString(Sum.takeError());
  ASSERT_EQ(Sum->points.size(), 1u);
  EXPECT_EQ(Sum->points[0].status(), "ok");
  // The locked point is refused, not removed.
  SweepSpec Same = S;
  Same.only = {"h2-fixed-e2-t1"};
  auto Clash = runSweep(Same);
  ASSERT_TRUE(bool(Clash)) << llvm::toString(Clash.takeError());
  ASSERT_EQ(Clash->points.size(), 1u);
  const PointRecord &R = Clash->points[0].record;
  EXPECT_EQ(R.status, "failed");
  EXPECT_EQ(R.reason, "error");
  ASSERT_TRUE(R.message.has_value());
  EXPECT_NE(R.message->find("point 'h2-fixed-e2-t1' is in use by another "
                            "process"),
            std::string::npos)
      << *R.message;
  EXPECT_TRUE(llvm::sys::fs::exists(Busy + "/A"));
  EXPECT_EQ(logCounts().count("A fixed-e2-t1"), 0u);
  EXPECT_FALSE(llvm::sys::fs::exists(Busy + "/result.json"));
}

/// A pid that no process has: above the kernel's pid_max.
long deadPid() {
  std::ifstream In("/proc/sys/kernel/pid_max");
  long Max = 0;
  In >> Max;
  return (Max > 0 ? Max : 4194304) + 1;
}

TEST_F(SweepTest, ResumeRemovesTemporariesOfDeadWriters) {
  SweepSpec S = spec("2x1", {"fixed"});
  ASSERT_TRUE(bool(runSweep(S)));
  std::string Dir = S.outDir + "/points/h2-fixed-e2-t1";
  std::string Dead = std::to_string(deadPid());
  // A q2-opt killed while writing its report, a q2-profile killed while
  // writing a result or a phase record; and a writer that is still alive.
  std::vector<std::string> Stale = {
      Dir + "/report.json.q2tmp-" + Dead + "-0",
      Dir + "/result.json.q2tmp-" + Dead + "-3",
      Dir + "/BC/record.json.q2tmp-" + Dead + "-1"};
  std::string Live = Dir + "/report.json.q2tmp-1-0";
  for (const auto &F : Stale)
    std::ofstream(F) << "partial";
  std::ofstream(Live) << "being written";
  for (const auto &F : Stale)
    ASSERT_TRUE(q2::isTemporaryName(llvm::sys::path::filename(F))) << F;

  auto Again = runSweep(S);
  ASSERT_TRUE(bool(Again)) << llvm::toString(Again.takeError());
  EXPECT_EQ(Again->skipped, 1u);
  for (const auto &F : Stale)
    EXPECT_FALSE(llvm::sys::fs::exists(F)) << F;
  EXPECT_TRUE(llvm::sys::fs::exists(Live));
  EXPECT_TRUE(llvm::sys::fs::exists(Dir + "/result.json"));
  EXPECT_TRUE(llvm::sys::fs::exists(Dir + "/report.json"));
}

TEST(ExampleData, DefaultMoleculeIsFoundNextToTheExecutable) {
  EXPECT_EQ(examplesDirFor("/opt/q2/bin/q2-profile"),
            "/opt/q2/share/q2/examples");
  auto Missing = defaultMolecule("/nonexistent/share/q2/examples");
  ASSERT_FALSE(bool(Missing));
  std::string Msg = llvm::toString(Missing.takeError());
  EXPECT_NE(Msg.find("/nonexistent/share/q2/examples/hamiltonians/"
                     "h2_0.7414.FCIDUMP"),
            std::string::npos)
      << Msg;
}

TEST(PeakRssModel, MatchesAnIndependentLeastSquaresFit) {
  std::vector<double> X = {30, 90, 150, 135, 225, 600};
  std::vector<double> Y = {120.5, 180.1, 260.7, 230.2, 330.9, 801.0};
  PeakRssModel M(4000, 4000);
  EXPECT_FALSE(M.fitted());
  EXPECT_DOUBLE_EQ(M.predict(100), 4000);
  M.add(X[0], Y[0]);
  EXPECT_FALSE(M.fitted()); // One point determines no line.
  M.add(X[0], Y[0] + 5);
  EXPECT_FALSE(M.fitted()); // Nor do two at the same x.
  PeakRssModel N(4000, 4000);
  for (size_t I = 0; I < X.size(); ++I)
    N.add(X[I], Y[I]);
  ASSERT_TRUE(N.fitted());

  Eigen::MatrixXd A(X.size(), 2);
  Eigen::VectorXd B(X.size());
  for (size_t I = 0; I < X.size(); ++I) {
    A(I, 0) = 1;
    A(I, 1) = X[I];
    B(I) = Y[I];
  }
  Eigen::Vector2d Coef = A.colPivHouseholderQr().solve(B);
  EXPECT_NEAR(N.intercept(), Coef(0), 1e-9 * std::abs(Coef(0)));
  EXPECT_NEAR(N.slope(), Coef(1), 1e-9 * std::abs(Coef(1)));

  // 25% margin over the line, never below a peak already seen at a smaller
  // x, never above the cap.
  double Line = Coef(0) + Coef(1) * 300;
  EXPECT_NEAR(N.predict(300), std::max(1.25 * Line, 330.9), 1e-6);
  PeakRssModel Capped(4000, 500);
  for (size_t I = 0; I < X.size(); ++I)
    Capped.add(X[I], Y[I]);
  EXPECT_DOUBLE_EQ(Capped.predict(10000), 500);
}

TEST(Grid, ParseAndDefaults) {
  auto G = parseGrid("2x1, 4x10");
  ASSERT_TRUE(bool(G));
  ASSERT_EQ(G->size(), 2u);
  EXPECT_EQ((*G)[1].nEst, 4u);
  EXPECT_EQ((*G)[1].nTrotter, 10u);
  for (const char *Bad : {"", "2", "2x", "x3", "0x1", "2x0", "2x1,a"}) {
    auto E = parseGrid(Bad);
    EXPECT_FALSE(bool(E)) << Bad;
    if (!E)
      llvm::consumeError(E.takeError());
  }
  auto D = defaultH2Grid();
  ASSERT_EQ(D.size(), 8u);
  EXPECT_EQ(D.back().nEst, 4u);
  EXPECT_EQ(D.back().nTrotter, 10u);

  SweepSpec S;
  S.molecules = {{"H3O+", "f", 0}, {"h2", "g", 15}};
  auto Ids = enumeratePoints(S);
  EXPECT_EQ(Ids.size(), 2u * 8u * 2u);
  EXPECT_EQ(Ids[0].key(), "H3Op-fixed-e2-t1");
  EXPECT_EQ(Ids[1].key(), "H3Op-dynamic-e2-t1");
  S.only = {"h2-dynamic-e4-t10"};
  ASSERT_EQ(enumeratePoints(S).size(), 1u);
}

} // namespace
