//===- HeapSessionTest.cpp - Exact heap figures of passes and stages ------===//
//
// In Q2HeapTests: the interposer is linked in, so figures are exact.
//
//===----------------------------------------------------------------------===//

#include "q2/Profiling/Heap.h"
#include "q2/Profiling/Report.h"
#include "q2/Profiling/Session.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <cstring>
#include <memory>

using namespace q2::profiling;

namespace {

constexpr uint64_t kMiB = 1 << 20;

ProfilingOptions quiet() {
  ProfilingOptions o;
  o.warnOnStderr = false;
  return o;
}

/// Allocates `n` bytes, writes them, frees them. (volatile: the compiler
/// may drop a malloc/free pair whose block does not escape)
void spike(size_t n) {
  char *volatile p = static_cast<char *>(std::malloc(n));
  ASSERT_NE(p, nullptr);
  std::memset(p, 1, n);
  std::free(p);
}

const PassRecord &byLabel(const std::vector<PassRecord> &ps,
                          llvm::StringRef label) {
  for (const PassRecord &p : ps)
    if (p.label() == label)
      return p;
  ADD_FAILURE() << "no pass " << label.str();
  return ps.front();
}

TEST(HeapSession, APassThatFreesWhatItAllocatedShowsItsPeak) {
  ProfilingSession session(quiet());
  session.beginStage("S");
  int key;
  session.beginPass(&key, {"Spike", "spike", "builtin.module", "", false, false});
  spike(64 * kMiB);
  session.endPass(&key);
  session.endStage();
  const PassRecord &p = session.passes().at(0);
  EXPECT_TRUE(p.heap.exact);
  EXPECT_GE(p.heap.peak, p.heap.before + 64 * kMiB);
  EXPECT_EQ(p.heap.after, p.heap.before);
  EXPECT_EQ(p.heap.allocated, 64 * kMiB);
  EXPECT_EQ(p.heap.allocCount, 1u);
  // The block was mapped and unmapped: RSS does not show it.
  EXPECT_LT(std::abs(p.rssDelta), int64_t(16 * kMiB));
  const StageRecord &st = session.stages().at(0);
  EXPECT_TRUE(st.heap.exact);
  EXPECT_GE(st.heap.peak, p.heap.peak);
  EXPECT_GE(st.heap.allocated, p.heap.allocated);
}

TEST(HeapSession, TheProfilersOwnBookkeepingIsNotThePasss) {
  ProfilingSession session(quiet());
  session.beginStage("S");
  // Many records: their strings and vectors grow while the passes run.
  for (int i = 0; i < 200; ++i) {
    int key;
    session.beginPass(&key, {"Empty" + std::to_string(i), "empty-pass-" +
                             std::string(40, 'x'), "func.func", "f", false,
                             false});
    session.endPass(&key);
  }
  session.endStage();
  for (const PassRecord &p : session.passes()) {
    EXPECT_EQ(p.heap.allocated, 0u) << p.index;
    EXPECT_EQ(p.heap.allocCount, 0u) << p.index;
    EXPECT_EQ(p.heap.after, p.heap.before) << p.index;
    EXPECT_EQ(p.heap.peak, p.heap.before) << p.index;
  }
}

TEST(HeapSession, NestedPeaksAndWhereThePeakWas) {
  ProfilingSession session(quiet());
  session.beginStage("A");
  int outer, inner, other;
  session.beginPass(&outer, {"Outer", "", "builtin.module", "", true, false});
  session.beginPipeline(&outer, "func.func");
  session.beginPass(&inner, {"Inner", "inner", "func.func", "f", false, false});
  spike(32 * kMiB);
  session.endPass(&inner);
  session.endPipeline();
  session.endPass(&outer);
  session.endStage();
  session.beginStage("B");
  session.beginPass(&other, {"Other", "other", "builtin.module", "", false, false});
  spike(8 * kMiB);
  session.endPass(&other);
  spike(16 * kMiB); // in stage B, between passes
  session.endStage();

  std::vector<PassRecord> ps = session.passes();
  const PassRecord &o = ps.at(0), &i = byLabel(ps, "inner"),
                   &b = byLabel(ps, "other");
  EXPECT_GE(o.heap.peak, i.heap.peak); // a pass's peak includes its nested
  EXPECT_GE(o.heap.allocated, i.heap.allocated);
  EXPECT_GE(i.heap.peak, i.heap.before + 32 * kMiB);
  EXPECT_LT(b.heap.peak, b.heap.before + 16 * kMiB);
  std::vector<StageRecord> st = session.stages();
  EXPECT_GE(st[1].heap.peak, st[1].heap.before + 16 * kMiB);

  HeapPeakRecord h = session.heapPeak();
  EXPECT_TRUE(h.exact);
  EXPECT_EQ(h.peak, i.heap.peak);
  EXPECT_EQ(h.pass, "inner"); // the innermost, not its adaptor
  EXPECT_EQ(h.passRecord, i.index);
  EXPECT_EQ(h.stage, "A");
  EXPECT_GE(h.lifetimePeak, h.peak);
  EXPECT_NE(formatHeapPeak(h).find("in pass inner (stage A)"),
            std::string::npos)
      << formatHeapPeak(h);

  // The record and its JSON carry the same.
  SessionRecord rec = session.record();
  EXPECT_EQ(rec.heap.pass, "inner");
  auto back = fromJSONText<SessionRecord>(toJSONText(rec));
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->heap.peak, h.peak);
  EXPECT_EQ(back->heap.passRecord, i.index);
  EXPECT_TRUE(back->passes.at(i.index).heap.exact);
  EXPECT_EQ(back->passes.at(i.index).heap.peak, i.heap.peak);
  EXPECT_EQ(back->stages.at(1).heap.after, st[1].heap.after);
}

TEST(HeapSession, APeakBetweenPassesNamesTheStageOnly) {
  ProfilingSession session(quiet());
  session.beginStage("Quiet");
  session.endStage();
  session.beginStage("Loud");
  int key;
  session.beginPass(&key, {"P", "p", "builtin.module", "", false, false});
  session.endPass(&key);
  spike(48 * kMiB);
  session.endStage();
  HeapPeakRecord h = session.heapPeak();
  EXPECT_EQ(h.pass, "");
  EXPECT_EQ(h.passRecord, -1);
  EXPECT_EQ(h.stage, "Loud");
}

TEST(HeapSession, TheHeapTableListsWhatHeldMemoryNotWhatTookTime) {
  std::vector<PassRecord> ps(2);
  ps[0].argument = "slow";
  ps[0].wallS = 1.0;
  ps[0].heap = {10 * kMiB, 10 * kMiB, kMiB, 5, 11 * kMiB, true};
  ps[1].argument = "spiky";
  ps[1].wallS = 0.001;
  ps[1].heap = {10 * kMiB, 10 * kMiB, 20 * kMiB, 1, 30 * kMiB, true};
  for (PassRecord &p : ps)
    p.finished = true;
  std::string byTime = formatPassTable(ps, 1);
  std::string byHeap = formatHeapPassTable(ps, 1);
  EXPECT_NE(byTime.find("\nslow "), std::string::npos) << byTime;
  EXPECT_EQ(byTime.find("spiky"), std::string::npos) << byTime;
  EXPECT_NE(byHeap.find("\nspiky "), std::string::npos) << byHeap;
  EXPECT_EQ(byHeap.find("slow"), std::string::npos) << byHeap;
}

TEST(HeapSession, TablesShowTheHeap) {
  ProfilingSession session(quiet());
  session.beginStage("Stage1");
  int key;
  session.beginPass(&key, {"Spike", "spike", "builtin.module", "", false, false});
  spike(20 * kMiB);
  session.endPass(&key);
  session.endStage();
  std::string stages = formatStageTable(session.stages());
  EXPECT_NE(stages.find("HeapPk MB"), std::string::npos) << stages;
  EXPECT_EQ(stages.find("not counted per allocation"), std::string::npos);
  const PassRecord &p = session.passes().at(0);
  std::string passes = formatPassTable(session.passes());
  EXPECT_NE(passes.find("HeapPk MB"), std::string::npos) << passes;
  char peak[32];
  std::snprintf(peak, sizeof peak, "%.1f", double(p.heap.peak) / 1e6);
  EXPECT_NE(passes.find(peak), std::string::npos) << passes;
}

} // namespace
