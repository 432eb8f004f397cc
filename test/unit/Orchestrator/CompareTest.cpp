//===- CompareTest.cpp - compareProfiles: rows, the rule, refusals --------===//
#include "UnitTestUtil.h"
#include "q2/Orchestrator/Compare.h"
#include "q2/Profiling/Report.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

using namespace q2::orch;
namespace prof = q2::profiling;

namespace {

/// A report with two compile stages; `bufS` is the Bufferization wall time,
/// `irBytes` its IR, plus a nested pass run on two functions.
prof::ProfileReport report(double BufS, uint64_t IRBytes = 3000) {
  prof::ProfileReport R;
  R.tool = "q2-profile";
  R.input = "in.mlir";
  R.options["pipeline"] = std::string("canonicalize,func.func(cse)");
  auto Stage = [&](const char *Name, double S, uint64_t Bytes) {
    prof::StageRecord St;
    St.name = Name;
    St.index = int64_t(R.phaseB.stages.size());
    St.wallS = St.cpuS = S;
    St.peakRSS = 100 << 20;
    St.end.heap.inUse = 10 << 20;
    prof::IRMetrics IR;
    IR.kind = "mlir";
    IR.bytes = Bytes;
    IR.lines = Bytes / 30;
    St.ir = IR;
    St.firstPass = R.phaseB.passes.size();
    R.phaseB.stages.push_back(St);
  };
  Stage("Bufferization", BufS, IRBytes);
  // func.func(cse) on two functions: 0.1 s each (+ the adaptor).
  prof::PassRecord Adaptor;
  Adaptor.name = "OpToOpPassAdaptor";
  Adaptor.isAdaptor = true;
  Adaptor.wallS = 5; // never a row
  R.phaseB.passes.push_back(Adaptor);
  for (const char *F : {"f", "g"}) {
    prof::PassRecord P;
    P.argument = "cse";
    P.opSymbol = F;
    P.wallS = P.cpuS = 0.1;
    P.rssAfter = 50 << 20;
    R.phaseB.passes.push_back(P);
  }
  R.phaseB.stages.back().endPass = R.phaseB.passes.size();
  Stage("LLVMDialect", 4.0, 9000);
  R.phaseB.stages.back().endPass = R.phaseB.passes.size();
  return R;
}

class CompareTest : public ::testing::Test {
protected:
  std::string write(const std::string &Name, const prof::ProfileReport &R) {
    std::string P = Tmp + "/" + Name;
    llvm::Error E = prof::writeReport(P, R);
    EXPECT_FALSE(bool(E)) << llvm::toString(std::move(E));
    return P;
  }
  const CompareRow &row(const CompareResult &R, const std::string &Name,
                        const std::string &Metric) {
    for (const CompareRow &Row : R.rows)
      if (Row.name == Name && Row.metric == Metric)
        return Row;
    ADD_FAILURE() << "no row " << Name << " " << Metric;
    return R.rows.front();
  }
  q2::test::TempDir TmpDir{"q2-compare"};
  std::string Tmp = TmpDir.path;
};

TEST_F(CompareTest, RowsAreStagesPassesSummedAndTotal) {
  std::string A = write("a.json", report(2.0));
  auto R = compareProfiles(A, A, CompareOptions());
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  // The pass row sums both functions; the adaptor is not a row.
  EXPECT_DOUBLE_EQ(*row(*R, "Bufferization / cse", "wall_s").aMedian, 0.2);
  for (const CompareRow &Row : R->rows)
    EXPECT_EQ(Row.name.find("OpToOpPassAdaptor"), std::string::npos);
  EXPECT_DOUBLE_EQ(*row(*R, "compile", "wall_s").aMedian, 6.0);
  EXPECT_DOUBLE_EQ(*row(*R, "compile", "ir_bytes").aMedian, 9000);
  EXPECT_EQ(row(*R, "LLVMDialect", "ir_lines").verdict, "same");
  EXPECT_FALSE(R->regression());
}

TEST_F(CompareTest, RangeRuleWithRepeatedRuns) {
  std::string A = write("a1.json", report(2.0)) + "," +
                  write("a2.json", report(2.1)) + "," +
                  write("a3.json", report(1.9));
  // Median +20 % but overlapping ranges: noise.
  std::string Noisy = write("n1.json", report(2.0)) + "," +
                      write("n2.json", report(2.4)) + "," +
                      write("n3.json", report(2.5));
  auto R = compareProfiles(A, Noisy, CompareOptions());
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(row(*R, "Bufferization", "wall_s").verdict, "noise");
  EXPECT_FALSE(R->regression());
  // Disjoint ranges and beyond the threshold: a regression ...
  std::string Far = write("f1.json", report(2.6)) + "," +
                    write("f2.json", report(2.7)) + "," +
                    write("f3.json", report(2.8));
  R = compareProfiles(A, Far, CompareOptions());
  ASSERT_TRUE(bool(R));
  const CompareRow &W = row(*R, "Bufferization", "wall_s");
  EXPECT_EQ(W.verdict, "regression");
  EXPECT_NEAR(*W.relPct, 35.0, 1e-9);
  EXPECT_TRUE(R->regression());
  // ... unless the threshold is higher; the other way round, improvements.
  CompareOptions O;
  ASSERT_FALSE(bool(parseThresholds("wall=40,cpu_s=40", O)));
  R = compareProfiles(A, Far, O);
  ASSERT_TRUE(bool(R));
  EXPECT_FALSE(R->regression());
  R = compareProfiles(Far, A, CompareOptions());
  ASSERT_TRUE(bool(R));
  EXPECT_EQ(row(*R, "Bufferization", "wall_s").verdict, "improvement");
  EXPECT_FALSE(R->regression());
}

TEST_F(CompareTest, PassRowsGateOnlyWhenAsked) {
  prof::ProfileReport Slow = report(2.0);
  for (prof::PassRecord &P : Slow.phaseB.passes)
    P.wallS = P.cpuS = 1.0;
  std::string A = write("a.json", report(2.0)), B = write("b.json", Slow);
  auto R = compareProfiles(A, B, CompareOptions());
  ASSERT_TRUE(bool(R));
  const CompareRow &P = row(*R, "Bufferization / cse", "wall_s");
  EXPECT_EQ(P.verdict, "regression");
  EXPECT_FALSE(P.gated);
  EXPECT_FALSE(R->regression());
  CompareOptions O;
  O.gatePasses = true;
  R = compareProfiles(A, B, O);
  ASSERT_TRUE(bool(R));
  EXPECT_TRUE(R->regression());
}

TEST_F(CompareTest, MismatchesAreRefusedOrFlagged) {
  std::string A = write("a.json", report(2.0));
  prof::ProfileReport Other = report(2.0);
  Other.input = "other.mlir";
  std::string B = write("b.json", Other);
  auto R = compareProfiles(A, B, CompareOptions());
  ASSERT_FALSE(bool(R));
  EXPECT_NE(llvm::toString(R.takeError()).find("different programs"),
            std::string::npos);
  CompareOptions Allow;
  Allow.allowDifferentProgram = true;
  R = compareProfiles(A, B, Allow);
  ASSERT_TRUE(bool(R));
  // A side mixing programs is refused even when A vs B is allowed.
  R = compareProfiles(A + "," + B, A, Allow);
  ASSERT_FALSE(bool(R));
  llvm::consumeError(R.takeError());
  // Options that differ are listed.
  prof::ProfileReport Opt = report(2.0);
  Opt.options["ir_metrics"] = false;
  R = compareProfiles(A, write("o.json", Opt), CompareOptions());
  ASSERT_TRUE(bool(R));
  ASSERT_EQ(R->optionDifferences.size(), 1u);
  EXPECT_EQ(R->optionDifferences[0], "ir_metrics: (absent) -> false");
  // Failed runs are not compared.
  prof::ProfileReport Failed = report(2.0);
  Failed.error = "boom";
  R = compareProfiles(A, write("f.json", Failed), CompareOptions());
  ASSERT_FALSE(bool(R));
  EXPECT_NE(llvm::toString(R.takeError()).find("failed (boom)"),
            std::string::npos);
}

TEST_F(CompareTest, Thresholds) {
  CompareOptions O;
  EXPECT_FALSE(bool(parseThresholds("peak=2%, lines=0", O)));
  EXPECT_EQ(O.thresholdPct["peak_rss_bytes"], 2);
  EXPECT_EQ(O.thresholdPct["ir_lines"], 0);
  for (const char *Bad : {"speed=1", "wall=-1", "wall=x", "wall"}) {
    llvm::Error E = parseThresholds(Bad, O);
    EXPECT_TRUE(bool(E)) << Bad;
    llvm::consumeError(std::move(E));
  }
}

} // namespace
