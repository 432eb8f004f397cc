//===- ReportTest.cpp - Atomic JSON files and appended records ------------===//

#include "q2/Profiling/Report.h"
#include "q2/Profiling/Instrumentation.h"

#include "llvm/ADT/StringExtras.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace q2::profiling;

namespace {

struct TempDir {
  llvm::SmallString<128> path;
  TempDir() {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("q2-report", path));
  }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
  std::string file(llvm::StringRef name) const {
    llvm::SmallString<128> p(path);
    llvm::sys::path::append(p, name);
    return std::string(p);
  }
};

std::string errorText(llvm::Error e) { return llvm::toString(std::move(e)); }

TEST(ProfReport, AppendCreatesThenAppends) {
  TempDir dir;
  std::string f = dir.file("snap.json");
  ASSERT_FALSE(bool(appendJSONRecord(f, {{"label", "a"}})));
  ASSERT_FALSE(bool(appendJSONRecord(f, {{"label", "b"}})));
  auto doc = readJSONFile(f);
  ASSERT_TRUE(bool(doc)) << llvm::toString(doc.takeError());
  EXPECT_EQ((*doc)["schema"], "q2.snapshots/1");
  ASSERT_EQ((*doc)["snapshots"].size(), 2u);
  EXPECT_EQ((*doc)["snapshots"][0]["label"], "a");
  EXPECT_EQ((*doc)["snapshots"][1]["label"], "b");
  // No temporary files left behind.
  std::error_code ec;
  int entries = 0;
  for (llvm::sys::fs::directory_iterator it(dir.path, ec), end;
       !ec && it != end; it.increment(ec))
    ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(ProfReport, RefusesForeignFileWithoutTouchingIt) {
  TempDir dir;
  std::string f = dir.file("other.json");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(f, ec);
    ASSERT_FALSE(ec);
    os << "[1, 2, 3]\n";
  }
  std::string msg = errorText(appendJSONRecord(f, {{"label", "x"}}));
  EXPECT_NE(msg.find(f), std::string::npos) << msg;
  EXPECT_NE(msg.find("refusing"), std::string::npos) << msg;
  auto doc = readJSONFile(f);
  ASSERT_TRUE(bool(doc));
  EXPECT_EQ(*doc, nlohmann::json({1, 2, 3}));

  std::string bad = dir.file("bad.json");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(bad, ec);
    os << "{\"snapshots\": [";
  }
  msg = errorText(appendJSONRecord(bad, {{"label", "x"}}));
  EXPECT_NE(msg.find("invalid JSON"), std::string::npos) << msg;
}

TEST(ProfReport, UnwritablePathIsAnError) {
  std::string msg =
      errorText(writeJSONAtomically("/nonexistent-q2-dir/r.json", {{"a", 1}}));
  EXPECT_FALSE(msg.empty());
  EXPECT_NE(msg.find("/nonexistent-q2-dir/r.json"), std::string::npos) << msg;
}

TEST(ProfReport, SnapshotWithIR) {
  mlir::MLIRContext ctx;
  ctx.loadDialect<mlir::func::FuncDialect>();
  auto mod = mlir::parseSourceString<mlir::ModuleOp>(
      "func.func @f() {\n  return\n}\n", &ctx);
  ASSERT_TRUE(mod);
  auto j = snapshotWithIR("after-x", mod->getOperation());
  ASSERT_TRUE(bool(j)) << llvm::toString(j.takeError());
  EXPECT_EQ((*j)["label"], "after-x");
  EXPECT_EQ((*j)["ir"]["ops"], 3); // module, func, return
  std::string text;
  llvm::raw_string_ostream os(text);
  mod->print(os);
  os << '\n';
  EXPECT_EQ((*j)["ir"]["bytes"].get<uint64_t>(), text.size());
  EXPECT_GT((*j)["status"]["vm_rss_bytes"].get<uint64_t>(), 0u);
  auto noIR = snapshotWithIR("plain", nullptr);
  ASSERT_TRUE(bool(noIR));
  EXPECT_FALSE(noIR->contains("ir"));
}

TEST(ProfReport, StageTableComputesAmplification) {
  std::vector<StageRecord> st(3);
  st[0].name = "HLOLowering";
  st[0].wallS = 1.5;
  st[0].cpuS = 1.25;
  st[0].end.status.vmRSS = 100u << 20;
  st[0].peakRSS = 150u << 20;
  st[0].peakSource = "kernel_hwm";
  st[0].end.heap.inUse = 40u << 20;
  st[0].ir = IRMetrics{"mlir", 10240, 100, 50, {}};
  st[1].name = "NoIR";
  st[1].peakSource = "sampled";
  st[2].name = "LLVMIR";
  st[2].peakSource = "sampled";
  st[2].ir = IRMetrics{"llvm-ir", 634880, 9000, 4000, {}};
  std::string t = formatStageTable(st);
  llvm::SmallVector<llvm::StringRef, 8> lines;
  llvm::StringRef(t).split(lines, '\n', -1, false);
  ASSERT_EQ(lines.size(), 4u) << t;
  EXPECT_TRUE(lines[1].contains("HLOLowering")) << t;
  EXPECT_TRUE(lines[1].contains("1.500")) << t;
  EXPECT_TRUE(lines[1].contains("150.0 hwm")) << t;
  EXPECT_TRUE(lines[1].contains("10.0")) << t;      // IR KB
  EXPECT_TRUE(lines[1].trim().ends_with("-")) << t; // no previous IR
  EXPECT_TRUE(lines[2].contains("smp")) << t;
  // 634880 / 10240 = 62: amplification against the last stage with IR.
  EXPECT_TRUE(lines[3].trim().ends_with("62.00x")) << t;
  EXPECT_TRUE(lines[3].contains("620.0")) << t;
}

TEST(ProfReport, PassTableSortsByWall) {
  std::vector<PassRecord> ps(3);
  ps[0].argument = "cheap";
  ps[0].wallS = 0.001;
  ps[1].argument = "costly";
  ps[1].wallS = 0.5;
  ps[1].opName = "func.func";
  ps[1].opSymbol = "qpe";
  ps[2].name = "pipeline(func.func)";
  ps[2].isAdaptor = true;
  ps[2].wallS = 1.0;
  for (auto &p : ps)
    p.finished = true;
  std::string t = formatPassTable(ps, 5);
  EXPECT_EQ(t.find("pipeline"), std::string::npos) << t;
  size_t costly = t.find("costly"), cheap = t.find("cheap");
  ASSERT_NE(costly, std::string::npos);
  ASSERT_NE(cheap, std::string::npos);
  EXPECT_LT(costly, cheap) << t;
  EXPECT_NE(t.find("func.func @qpe"), std::string::npos) << t;
  EXPECT_NE(t.find("500.000"), std::string::npos) << t;
  std::string one = formatPassTable(ps, 1);
  EXPECT_EQ(one.find("cheap"), std::string::npos) << one;
}

} // namespace
