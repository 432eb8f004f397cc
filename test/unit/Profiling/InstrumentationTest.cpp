//===- InstrumentationTest.cpp - Sessions, passes, stages, traces ---------===//

#include "q2/Profiling/MLIR/Instrumentation.h"
#include "TestUtil.h"
#include "q2/Profiling/ChromeTrace.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <set>
#include <unistd.h>
#include "TestSanitizers.h"

using namespace q2::profiling;
using namespace q2::profiling::test;

namespace {

/// Holds 100 MB for 40 ms while it runs, then frees it.
struct AllocPass
    : mlir::PassWrapper<AllocPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AllocPass)
  llvm::StringRef getArgument() const final { return "test-alloc-100mb"; }
  void runOnOperation() override {
    char *p = allocTouched(100 * MiB);
    sleepMs(40);
    std::free(p);
  }
};

struct SleepPass
    : mlir::PassWrapper<SleepPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SleepPass)
  llvm::StringRef getArgument() const final { return "test-sleep"; }
  void runOnOperation() override { sleepMs(15); }
};

struct FailPass
    : mlir::PassWrapper<FailPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FailPass)
  llvm::StringRef getArgument() const final { return "test-fail"; }
  void runOnOperation() override { signalPassFailure(); }
};

const char *kPassModule = R"mlir(
func.func @f(%a: i32, %b: i32) -> i32 {
  %0 = arith.addi %a, %b : i32
  %1 = arith.addi %a, %b : i32
  %2 = arith.muli %0, %1 : i32
  return %2 : i32
}
func.func @g() {
  return
}
)mlir";

struct Fixture : ::testing::Test {
  mlir::MLIRContext ctx;
  mlir::OwningOpRef<mlir::ModuleOp> mod;
  void SetUp() override {
    ctx.loadDialect<mlir::func::FuncDialect, mlir::arith::ArithDialect>();
    ctx.disableMultithreading();
    mod = mlir::parseSourceString<mlir::ModuleOp>(kPassModule, &ctx);
    ASSERT_TRUE(mod);
  }
  static ProfilingOptions quiet() {
    ProfilingOptions o;
    o.warnOnStderr = false;
    return o;
  }
};

std::string printed(mlir::Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os);
  os << '\n';
  return s;
}

using ProfInstrumentation = Fixture;

// the peak of the timeline names the pass that allocated.
TEST_F(ProfInstrumentation, PeakIsAttributedToAllocatingPass) {
  Q2_SKIP_UNDER_ASAN("the quarantine keeps freed memory resident");
  ProfilingSession session(quiet());
  ASSERT_FALSE(bool(session.startTimeline(1)));
  mlir::PassManager pm(&ctx);
  pm.addPass(std::make_unique<SleepPass>());
  pm.addPass(std::make_unique<AllocPass>());
  pm.addPass(std::make_unique<SleepPass>());
  attachProfiling(pm, session);

  session.beginStage("S1");
  ASSERT_TRUE(mlir::succeeded(pm.run(*mod)));
  StageRecord *st = session.endStage();
  session.stopTimeline();
  ASSERT_NE(st, nullptr);
  EXPECT_TRUE(session.warnings().empty());

  std::vector<PassRecord> passes = session.passes();
  ASSERT_EQ(passes.size(), 3u);
  EXPECT_EQ(passes[1].argument, "test-alloc-100mb");
  for (const PassRecord &p : passes) {
    EXPECT_TRUE(p.finished);
    EXPECT_FALSE(p.failed);
    EXPECT_EQ(p.depth, 0u);
    EXPECT_EQ(p.parent, -1);
    EXPECT_EQ(p.opName, "builtin.module");
    EXPECT_EQ(p.stage, "S1");
    EXPECT_LE(p.cpuS, p.wallS + 1e-3);
    EXPECT_GE(p.startS, st->begin.elapsedS);
    EXPECT_LE(p.endS, st->end.elapsedS);
  }
  EXPECT_GE(passes[0].wallS, 0.0149);
  EXPECT_GE(passes[1].wallS, 0.0399);
  EXPECT_LT(passes[0].cpuS, 0.010); // it sleeps
  // The memory is freed before the pass ends: small net delta.
  EXPECT_LT(std::abs(double(passes[1].rssDelta)), 20.0 * MiB);

  ASSERT_TRUE(session.timeline()->peak().has_value());
  TimelinePeak pk = *session.timeline()->peak();
  EXPECT_EQ(pk.sample.pass, "test-alloc-100mb");
  EXPECT_EQ(pk.sample.stage, "S1");
  EXPECT_EQ(pk.sample.passRecord, 1);
  EXPECT_GE(double(pk.sample.rss), double(st->begin.status.vmRSS) + 90.0 * MiB);

  // Stage peak: the kernel's per-stage VmHWM, or the sampled fallback.
  EXPECT_EQ(st->name, "S1");
  EXPECT_EQ(st->firstPass, 0u);
  EXPECT_EQ(st->endPass, 3u);
  EXPECT_GE(st->wallS, 0.07);
  EXPECT_GE(double(st->peakRSS), double(st->begin.status.vmRSS) + 90.0 * MiB);
  EXPECT_EQ(st->peakSource, st->peakResetAccepted ? "kernel_hwm" : "sampled");
  ASSERT_TRUE(st->sampledPeak.has_value());
  EXPECT_EQ(st->sampledPeak->pass, "test-alloc-100mb");
  EXPECT_GE(session.lifetimePeakRSS(), st->peakRSS);

  // JSON round trip.
  nlohmann::json j = test::asJSON(session.record());
  EXPECT_EQ(j["passes"].size(), 3u);
  EXPECT_EQ(j["stages"].size(), 1u);
  EXPECT_EQ(j["stages"][0]["peak_rss_bytes"].get<uint64_t>(), st->peakRSS);
  EXPECT_EQ(j["timeline"]["peak"]["pass"], "test-alloc-100mb");
  EXPECT_EQ(j["passes"][1]["argument"], "test-alloc-100mb");

  // Chrome trace: written atomically, parses, has the spans and counters.
  ChromeTrace trace;
  trace.setProcessName("q2-test");
  session.exportTrace(trace);
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("q2-trace", "json", path));
  ASSERT_FALSE(bool(trace.write(path)));
  auto buf = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(bool(buf));
  nlohmann::json t = nlohmann::json::parse((*buf)->getBuffer().str());
  llvm::sys::fs::remove(path);
  ASSERT_TRUE(t.contains("traceEvents"));
  const nlohmann::json *stageEv = nullptr, *allocEv = nullptr;
  size_t counters = 0, passSpans = 0;
  for (const auto &e : t["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "stage" && e["name"] == "S1")
      stageEv = &e;
    if (e["ph"] == "X" && e["cat"] == "pass") {
      ++passSpans;
      if (e["name"] == "test-alloc-100mb")
        allocEv = &e;
    }
    if (e["ph"] == "C" && e["name"] == "RSS")
      ++counters;
  }
  ASSERT_NE(stageEv, nullptr);
  ASSERT_NE(allocEv, nullptr);
  EXPECT_EQ(passSpans, 3u);
  EXPECT_EQ(counters, session.timeline()->sampleCount());
  // The pass span lies inside the stage span (Perfetto nests them).
  double s0 = (*stageEv)["ts"], s1 = s0 + (*stageEv)["dur"].get<double>();
  double p0 = (*allocEv)["ts"], p1 = p0 + (*allocEv)["dur"].get<double>();
  EXPECT_GE(p0, s0);
  EXPECT_LE(p1, s1);
  EXPECT_NEAR(p1 - p0, passes[1].wallS * 1e6, 5000.0);
}

TEST_F(ProfInstrumentation, NestedPipelinesAndIRMetricsPerPass) {
  ProfilingSession session(quiet());
  mlir::PassManager pm(&ctx);
  pm.nest<mlir::func::FuncOp>().addPass(mlir::createCSEPass());
  pm.addPass(std::make_unique<SleepPass>());
  InstrumentationOptions io;
  io.irMetricsPerPass = true;
  attachProfiling(pm, session, io);

  std::string before = printed(mod.get());
  ASSERT_TRUE(mlir::succeeded(pm.run(*mod)));
  std::string after = printed(mod.get());
  ASSERT_LT(after.size(), before.size()) << "cse should remove an addi";

  std::vector<PassRecord> ps = session.passes();
  ASSERT_EQ(ps.size(), 4u);
  // [0] adaptor on the module, [1] cse on @f, [2] cse on @g, [3] sleep.
  EXPECT_TRUE(ps[0].isAdaptor);
  EXPECT_EQ(ps[0].name, "'func.func' Pipeline"); // as --mlir-timing names it
  EXPECT_EQ(ps[0].depth, 0u);
  EXPECT_FALSE(ps[0].irAfter.has_value());
  for (int i : {1, 2}) {
    EXPECT_EQ(ps[i].argument, "cse");
    EXPECT_EQ(ps[i].opName, "func.func");
    EXPECT_EQ(ps[i].depth, 1u);
    EXPECT_EQ(ps[i].parent, 0);
    ASSERT_TRUE(ps[i].irAfter.has_value());
  }
  EXPECT_EQ(ps[1].opSymbol, "f");
  EXPECT_EQ(ps[2].opSymbol, "g");
  EXPECT_EQ(ps[3].depth, 0u);
  EXPECT_EQ(ps[3].parent, -1);
  // After cse on @f the module is already in its final form.
  EXPECT_EQ(ps[1].irAfter->bytes, after.size());
  EXPECT_EQ(ps[1].irAfter->lines,
            uint64_t(std::count(after.begin(), after.end(), '\n')));
  // module, 2 func.func, addi + muli (one addi CSEd away), 2 return
  EXPECT_EQ(ps[1].irAfter->ops, 7u);
  EXPECT_EQ(ps[3].irAfter->bytes, after.size());
  // The adaptor's own time covers its children.
  EXPECT_GE(ps[0].wallS + 1e-6, ps[1].wallS + ps[2].wallS);
  EXPECT_NEAR(ps[0].selfWallS, ps[0].wallS - ps[1].wallS - ps[2].wallS, 1e-9);
}

TEST_F(ProfInstrumentation, FailedPassIsRecorded) {
  ProfilingSession session(quiet());
  mlir::PassManager pm(&ctx);
  pm.addPass(std::make_unique<FailPass>());
  pm.addPass(std::make_unique<SleepPass>());
  attachProfiling(pm, session);
  ASSERT_TRUE(mlir::failed(pm.run(*mod)));
  std::vector<PassRecord> ps = session.passes();
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_TRUE(ps[0].failed);
  EXPECT_TRUE(ps[0].finished);
  // The tracker is back to "no pass".
  EXPECT_EQ(session.phase().current().pass, 0u);
}

TEST_F(ProfInstrumentation, WarnsWhenMultithreaded) {
  ctx.enableMultithreading();
  ProfilingSession session(quiet());
  mlir::PassManager pm(&ctx);
  pm.addPass(std::make_unique<SleepPass>());
  attachProfiling(pm, session);
  ASSERT_TRUE(mlir::succeeded(pm.run(*mod)));
  ASSERT_EQ(session.warnings().size(), 1u);
  EXPECT_NE(session.warnings()[0].find("multithreading"), std::string::npos);

  // attachProfiling can turn it off itself.
  ProfilingSession s2(quiet());
  mlir::PassManager pm2(&ctx);
  pm2.addPass(std::make_unique<SleepPass>());
  attachProfiling(pm2, s2, {}, /*disableThreading=*/true);
  EXPECT_FALSE(ctx.isMultithreadingEnabled());
  ASSERT_TRUE(mlir::succeeded(pm2.run(*mod)));
  EXPECT_TRUE(s2.warnings().empty());
}

// With threads, records stay consistent and per-pass IR metrics measure only
// the function (printing the module while workers rewrite it would race).
TEST_F(ProfInstrumentation, MultithreadedNestedPassesAreLinked) {
  std::string text;
  for (int i = 0; i < 16; ++i)
    text += "func.func @f" + std::to_string(i) +
            "(%a: i32) -> i32 {\n  %0 = arith.addi %a, %a : i32\n"
            "  %1 = arith.addi %a, %a : i32\n  %2 = arith.muli %0, %1 : i32\n"
            "  return %2 : i32\n}\n";
  mod = mlir::parseSourceString<mlir::ModuleOp>(text, &ctx);
  ASSERT_TRUE(mod);
  ctx.enableMultithreading();
  ProfilingSession session(quiet());
  ASSERT_FALSE(bool(session.startTimeline(1)));
  mlir::PassManager pm(&ctx);
  pm.nest<mlir::func::FuncOp>().addPass(mlir::createCSEPass());
  InstrumentationOptions io;
  io.irMetricsPerPass = true;
  attachProfiling(pm, session, io);
  session.beginStage("MT");
  ASSERT_TRUE(mlir::succeeded(pm.run(*mod)));
  session.endStage();
  session.stopTimeline();
  std::vector<PassRecord> ps = session.passes();
  ASSERT_EQ(ps.size(), 17u);
  EXPECT_TRUE(ps[0].isAdaptor);
  std::set<std::string> funcs;
  for (size_t i = 1; i < ps.size(); ++i) {
    EXPECT_TRUE(ps[i].finished);
    EXPECT_EQ(ps[i].parent, 0);
    EXPECT_EQ(ps[i].depth, 1u);
    EXPECT_EQ(ps[i].stage, "MT");
    funcs.insert(ps[i].opSymbol);
    ASSERT_TRUE(ps[i].irAfter.has_value());
    // func.func + addi + muli + return after CSE.
    EXPECT_EQ(ps[i].irAfter->ops, 4u);
  }
  EXPECT_EQ(funcs.size(), 16u);
  EXPECT_EQ(session.warnings().size(), 1u);
  ctx.disableMultithreading();
}

TEST(ProfSession, StagesWithoutTimelineAndSnapshots) {
  ProfilingOptions o;
  o.warnOnStderr = false;
  o.smapsAtStageBoundaries = true;
  ProfilingSession session(o);
  EXPECT_EQ(session.endStage(), nullptr);
  session.beginStage("A");
  char *p = allocTouched(50 * MiB);
  session.beginStage("B"); // closes A
  std::free(p);
  StageRecord *b = session.endStage();
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->name, "B");
  EXPECT_FALSE(session.inStage());
  std::vector<StageRecord> st = session.stages();
  ASSERT_EQ(st.size(), 2u);
  EXPECT_EQ(st[0].name, "A");
  EXPECT_EQ(st[1].index, 1);
  EXPECT_TRUE(st[0].begin.smaps.has_value());
  EXPECT_GE(double(st[0].end.status.vmRSS),
            double(st[0].begin.status.vmRSS) + 45.0 * MiB);
  EXPECT_GE(double(st[0].peakRSS),
            double(st[0].begin.status.vmRSS) + 45.0 * MiB);
  EXPECT_EQ(st[0].peakSource,
            st[0].peakResetAccepted ? "kernel_hwm" : "sampled");
  // B started with 50 MB resident and freed it: its kernel peak is B's own,
  // not A's earlier one only if the reset worked.
  EXPECT_FALSE(st[1].sampledPeak.has_value());

  auto s = session.snapshot("after", false);
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(session.snapshots().size(), 1u);
  EXPECT_EQ(session.snapshots()[0].label, "after");
  nlohmann::json j = test::asJSON(session.record());
  EXPECT_TRUE(j["timeline"].is_null());
  EXPECT_EQ(j["stages"][0]["begin"]["label"], "A:begin");
}

TEST(ProfSession, ChainedStagesReuseTheEndSnapshotOnlyBackToBack) {
  ProfilingOptions o;
  o.warnOnStderr = false;
  o.chainStageSnapshots = true;
  ProfilingSession session(o);
  session.beginStage("A");
  session.endStage();
  session.beginStage("B"); // back to back: A's end is B's begin
  session.endStage();
  char *p = allocTouched(50 * MiB);
  session.beginStage("C"); // something ran in between, but no pass or
  session.endStage();      // snapshot: still chained (the caller's contract)
  auto snap = session.snapshot("mid");
  ASSERT_TRUE(bool(snap));
  session.beginStage("D"); // a snapshot in between: measured afresh
  std::free(p);
  session.endStage();
  std::vector<StageRecord> st = session.stages();
  ASSERT_EQ(st.size(), 4u);
  EXPECT_EQ(st[1].begin.label, "B:begin");
  EXPECT_EQ(st[1].begin.unixTimeS, st[0].end.unixTimeS);
  EXPECT_EQ(st[1].begin.status.vmRSS, st[0].end.status.vmRSS);
  EXPECT_EQ(st[2].begin.unixTimeS, st[1].end.unixTimeS);
  EXPECT_NE(st[3].begin.unixTimeS, st[2].end.unixTimeS);
  EXPECT_GE(st[3].begin.unixTimeS, snap->unixTimeS);
  // Each stage's own clock starts at its beginStage, not at the reused
  // snapshot.
  EXPECT_GE(st[1].begin.elapsedS, st[0].end.elapsedS);

  ProfilingOptions off;
  off.warnOnStderr = false;
  ProfilingSession plain(off);
  plain.beginStage("A");
  plain.endStage();
  plain.beginStage("B");
  plain.endStage();
  EXPECT_NE(plain.stages()[1].begin.unixTimeS,
            plain.stages()[0].end.unixTimeS);
}

TEST(ProfSession, ScopedStageClosesOnScopeExit) {
  ProfilingOptions o;
  o.warnOnStderr = false;
  ProfilingSession session(o);
  {
    ScopedStage a(session, "A");
    EXPECT_EQ(session.currentStageName(), "A");
  }
  EXPECT_FALSE(session.inStage());
  {
    ScopedStage b(session, "B");
    StageRecord *r = b.finish();
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->name, "B");
    EXPECT_EQ(b.finish(), nullptr);
    ScopedStage c(session, "C");
    session.beginStage("D"); // closes C; C's destructor must not close D
  }
  EXPECT_EQ(session.currentStageName(), "D");
  session.endStage();
  std::vector<StageRecord> st = session.stages();
  ASSERT_EQ(st.size(), 4u);
  EXPECT_EQ(st[0].name, "A");
  EXPECT_EQ(st[2].name, "C");
  EXPECT_EQ(st[3].name, "D");
}

TEST(ProfChromeTraceWriter, EventsAndErrors) {
  ChromeTrace t(42);
  t.setProcessName("p");
  t.setThreadName(3, "worker");
  t.addComplete("span", "cat", 1.5, 0.25, 3, {{"k", 1.0}});
  t.addCounter("RSS", 2.0, {{"rss_mb", 10.0}, {"heap_mb", 4.0}});
  t.addInstant("mark", 2.5);
  EXPECT_EQ(t.size(), 5u);
  auto text = t.toJSONText();
  ASSERT_TRUE(bool(text));
  nlohmann::json j = nlohmann::json::parse(*text);
  const auto &ev = j["traceEvents"];
  ASSERT_EQ(ev.size(), 5u);
  EXPECT_EQ(ev[2]["ph"], "X");
  EXPECT_DOUBLE_EQ(ev[2]["ts"].get<double>(), 1.5e6);
  EXPECT_DOUBLE_EQ(ev[2]["dur"].get<double>(), 0.25e6);
  EXPECT_EQ(ev[2]["pid"], 42);
  EXPECT_EQ(ev[2]["tid"], 3);
  EXPECT_EQ(ev[2]["args"]["k"], 1);
  EXPECT_EQ(ev[3]["ph"], "C");
  EXPECT_DOUBLE_EQ(ev[3]["args"]["heap_mb"].get<double>(), 4.0);
  EXPECT_EQ(ev[4]["ph"], "i");
  llvm::Error e = t.write("/nonexistent-dir/q2/trace.json");
  EXPECT_TRUE(bool(e));
  llvm::consumeError(std::move(e));
}

} // namespace

// Embedded policy (the Python module's compile): no VmHWM reset, so the
// host's ru_maxrss/VmHWM stays what it was; stage peaks are sampled.
TEST(ProfSession, WithoutResetTheProcessPeakStays) {
  Q2_SKIP_UNDER_ASAN("the quarantine keeps freed memory resident");
  char *p = allocTouched(100 * MiB);
  std::free(p);
  auto before = readProcStatus();
  ASSERT_TRUE(bool(before));
  ProfilingOptions o;
  o.warnOnStderr = false;
  o.resetPeakPerStage = false;
  ProfilingSession session(o);
  TimelineSampler::Options to;
  to.intervalMs = 2;
  to.backend = TimelineSampler::Options::Backend::Thread;
  ASSERT_FALSE(bool(session.startTimeline(to)));
  session.beginStage("A");
  char *q = allocTouched(30 * MiB);
  sleepMs(20);
  std::free(q);
  StageRecord *a = session.endStage();
  ASSERT_NE(a, nullptr);
  auto after = readProcStatus();
  ASSERT_TRUE(bool(after));
  EXPECT_GE(after->vmHWM, before->vmHWM);
  EXPECT_FALSE(a->peakResetAccepted);
  EXPECT_EQ(a->peakSource, "sampled");
  EXPECT_GE(double(a->peakRSS), double(a->begin.status.vmRSS) + 25.0 * MiB);
}
