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
prof::ProfileReport report(double bufS, uint64_t irBytes = 3000) {
  prof::ProfileReport r;
  r.tool = "q2-profile";
  r.input = "in.mlir";
  r.options["pipeline"] = std::string("canonicalize,func.func(cse)");
  auto stage = [&](const char *name, double s, uint64_t bytes) {
    prof::StageRecord st;
    st.name = name;
    st.index = int64_t(r.phaseB.stages.size());
    st.wallS = st.cpuS = s;
    st.peakRSS = 100 << 20;
    st.end.heap.inUse = 10 << 20;
    prof::IRMetrics ir;
    ir.kind = "mlir";
    ir.bytes = bytes;
    ir.lines = bytes / 30;
    st.ir = ir;
    st.firstPass = r.phaseB.passes.size();
    r.phaseB.stages.push_back(st);
  };
  stage("Bufferization", bufS, irBytes);
  // func.func(cse) on two functions: 0.1 s each (+ the adaptor).
  prof::PassRecord adaptor;
  adaptor.name = "OpToOpPassAdaptor";
  adaptor.isAdaptor = true;
  adaptor.wallS = 5; // never a row
  r.phaseB.passes.push_back(adaptor);
  for (const char *f : {"f", "g"}) {
    prof::PassRecord p;
    p.argument = "cse";
    p.opSymbol = f;
    p.wallS = p.cpuS = 0.1;
    p.rssAfter = 50 << 20;
    r.phaseB.passes.push_back(p);
  }
  r.phaseB.stages.back().endPass = r.phaseB.passes.size();
  stage("LLVMDialect", 4.0, 9000);
  r.phaseB.stages.back().endPass = r.phaseB.passes.size();
  return r;
}

class CompareTest : public ::testing::Test {
protected:
  std::string write(const std::string &name, const prof::ProfileReport &r) {
    std::string p = Tmp + "/" + name;
    llvm::Error e = prof::writeReport(p, r);
    EXPECT_FALSE(bool(e)) << llvm::toString(std::move(e));
    return p;
  }
  const CompareRow &row(const CompareResult &r, const std::string &name,
                        const std::string &metric) {
    for (const CompareRow &row : r.rows)
      if (row.name == name && row.metric == metric)
        return row;
    ADD_FAILURE() << "no row " << name << " " << metric;
    return r.rows.front();
  }
  q2::test::TempDir TmpDir{"q2-compare"};
  std::string Tmp = TmpDir.path;
};

TEST_F(CompareTest, RowsAreStagesPassesSummedAndTotal) {
  std::string a = write("a.json", report(2.0));
  auto r = compareProfiles(a, a, CompareOptions());
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  // The pass row sums both functions; the adaptor is not a row.
  EXPECT_DOUBLE_EQ(*row(*r, "Bufferization / cse", "wall_s").aMedian, 0.2);
  for (const CompareRow &row : r->rows)
    EXPECT_EQ(row.name.find("OpToOpPassAdaptor"), std::string::npos);
  EXPECT_DOUBLE_EQ(*row(*r, "compile", "wall_s").aMedian, 6.0);
  EXPECT_DOUBLE_EQ(*row(*r, "compile", "ir_bytes").aMedian, 9000);
  EXPECT_EQ(row(*r, "LLVMDialect", "ir_lines").verdict, "same");
  EXPECT_FALSE(r->regression());
}

TEST_F(CompareTest, RangeRuleWithRepeatedRuns) {
  std::string a = write("a1.json", report(2.0)) + "," +
                  write("a2.json", report(2.1)) + "," +
                  write("a3.json", report(1.9));
  // Median +20 % but overlapping ranges: noise.
  std::string noisy = write("n1.json", report(2.0)) + "," +
                      write("n2.json", report(2.4)) + "," +
                      write("n3.json", report(2.5));
  auto r = compareProfiles(a, noisy, CompareOptions());
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_EQ(row(*r, "Bufferization", "wall_s").verdict, "noise");
  EXPECT_FALSE(r->regression());
  // Disjoint ranges and beyond the threshold: a regression ...
  std::string far = write("f1.json", report(2.6)) + "," +
                    write("f2.json", report(2.7)) + "," +
                    write("f3.json", report(2.8));
  r = compareProfiles(a, far, CompareOptions());
  ASSERT_TRUE(bool(r));
  const CompareRow &w = row(*r, "Bufferization", "wall_s");
  EXPECT_EQ(w.verdict, "regression");
  EXPECT_NEAR(*w.relPct, 35.0, 1e-9);
  EXPECT_TRUE(r->regression());
  // ... unless the threshold is higher; the other way round, improvements.
  CompareOptions o;
  ASSERT_FALSE(bool(parseThresholds("wall=40,cpu_s=40", o)));
  r = compareProfiles(a, far, o);
  ASSERT_TRUE(bool(r));
  EXPECT_FALSE(r->regression());
  r = compareProfiles(far, a, CompareOptions());
  ASSERT_TRUE(bool(r));
  EXPECT_EQ(row(*r, "Bufferization", "wall_s").verdict, "improvement");
  EXPECT_FALSE(r->regression());
}

TEST_F(CompareTest, PassRowsGateOnlyWhenAsked) {
  prof::ProfileReport slow = report(2.0);
  for (prof::PassRecord &p : slow.phaseB.passes)
    p.wallS = p.cpuS = 1.0;
  std::string a = write("a.json", report(2.0)), b = write("b.json", slow);
  auto r = compareProfiles(a, b, CompareOptions());
  ASSERT_TRUE(bool(r));
  const CompareRow &p = row(*r, "Bufferization / cse", "wall_s");
  EXPECT_EQ(p.verdict, "regression");
  EXPECT_FALSE(p.gated);
  EXPECT_FALSE(r->regression());
  CompareOptions o;
  o.gatePasses = true;
  r = compareProfiles(a, b, o);
  ASSERT_TRUE(bool(r));
  EXPECT_TRUE(r->regression());
}

TEST_F(CompareTest, MismatchesAreRefusedOrFlagged) {
  std::string a = write("a.json", report(2.0));
  prof::ProfileReport other = report(2.0);
  other.input = "other.mlir";
  std::string b = write("b.json", other);
  auto r = compareProfiles(a, b, CompareOptions());
  ASSERT_FALSE(bool(r));
  EXPECT_NE(llvm::toString(r.takeError()).find("different programs"),
            std::string::npos);
  CompareOptions allow;
  allow.allowDifferentProgram = true;
  r = compareProfiles(a, b, allow);
  ASSERT_TRUE(bool(r));
  // A side mixing programs is refused even when A vs B is allowed.
  r = compareProfiles(a + "," + b, a, allow);
  ASSERT_FALSE(bool(r));
  llvm::consumeError(r.takeError());
  // Options that differ are listed.
  prof::ProfileReport opt = report(2.0);
  opt.options["ir_metrics"] = false;
  r = compareProfiles(a, write("o.json", opt), CompareOptions());
  ASSERT_TRUE(bool(r));
  ASSERT_EQ(r->optionDifferences.size(), 1u);
  EXPECT_EQ(r->optionDifferences[0], "ir_metrics: (absent) -> false");
  // Failed runs are not compared.
  prof::ProfileReport failed = report(2.0);
  failed.error = "boom";
  r = compareProfiles(a, write("f.json", failed), CompareOptions());
  ASSERT_FALSE(bool(r));
  EXPECT_NE(llvm::toString(r.takeError()).find("failed (boom)"),
            std::string::npos);
}

TEST_F(CompareTest, Thresholds) {
  CompareOptions o;
  EXPECT_FALSE(bool(parseThresholds("peak=2%, lines=0", o)));
  EXPECT_EQ(o.thresholdPct["peak_rss_bytes"], 2);
  EXPECT_EQ(o.thresholdPct["ir_lines"], 0);
  for (const char *bad : {"speed=1", "wall=-1", "wall=x", "wall"}) {
    llvm::Error e = parseThresholds(bad, o);
    EXPECT_TRUE(bool(e)) << bad;
    llvm::consumeError(std::move(e));
  }
}

} // namespace
