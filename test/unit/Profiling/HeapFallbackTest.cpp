//===- HeapFallbackTest.cpp - Heap figures without the interposer ---------===//
//
// Q2ProfilingTests does not link the interposer (as a stock mlir-opt-22 or
// python3 without LD_PRELOAD): figures come from mallinfo2 at boundaries
// and say they are not exact.
//
//===----------------------------------------------------------------------===//

#include "q2/Profiling/Heap.h"
#include "q2/Profiling/Report.h"
#include "q2/Profiling/Session.h"

#include "TestSanitizers.h"
#include "gtest/gtest.h"

#include <cstdlib>
#include <cstring>

using namespace q2::profiling;

namespace {

TEST(HeapFallback, NotExactAndSaysSo) {
  Q2_SKIP_UNDER_ASAN("heap statistics come from glibc malloc");
  EXPECT_FALSE(heapCountingExact());
  HeapCounters c = readHeapCounters();
  EXPECT_GT(c.live, 0u); // mallinfo2: gtest has allocated
  EXPECT_EQ(c.allocCount, 0u);

  ProfilingOptions o;
  o.warnOnStderr = false;
  ProfilingSession session(o);
  session.beginStage("S");
  int key;
  session.beginPass(&key, {"P", "p", "builtin.module", "", false, false});
  // Held across the end of the pass: the boundaries see it. (volatile:
  // the compiler may drop a malloc/free pair whose block does not escape)
  char *volatile p = static_cast<char *>(std::malloc(4 << 20));
  std::memset(p, 1, 4 << 20);
  session.endPass(&key);
  std::free(p);
  session.endStage();
  const PassRecord &r = session.passes().at(0);
  EXPECT_FALSE(r.heap.exact);
  EXPECT_GE(r.heap.after, r.heap.before + (4 << 20));
  EXPECT_EQ(r.heap.peak, std::max(r.heap.before, r.heap.after));
  EXPECT_EQ(r.heap.allocCount, 0u);
  const StageRecord &st = session.stages().at(0);
  EXPECT_FALSE(st.heap.exact);
  EXPECT_GE(st.heap.peak, r.heap.after);
  EXPECT_NE(formatStageTable(session.stages()).find(
                "not counted per allocation"),
            std::string::npos);
  HeapPeakRecord h = session.heapPeak();
  EXPECT_FALSE(h.exact);
  EXPECT_EQ(h.peak, st.heap.peak);
  EXPECT_NE(formatHeapPeak(h).find("not exact"), std::string::npos);
}

TEST(HeapFallback, OldReportsReadWithoutHeapKeys) {
  // A pass record written before exact heap counting (no heap_* keys) reads
  // as not exact and zero.
  PassRecord r;
  r.name = "x";
  std::string text = toJSONText(r);
  for (const char *key : {"heap_before_bytes", "heap_after_bytes",
                          "heap_allocated_bytes", "heap_alloc_count",
                          "heap_peak_bytes", "heap_exact"}) {
    size_t at = text.find(std::string("\"") + key + "\"");
    ASSERT_NE(at, std::string::npos) << key;
    size_t end = text.find_first_of(",}", at);
    text.erase(at, end - at + (text[end] == ',' ? 1 : 0));
  }
  ASSERT_EQ(text.find("heap_"), std::string::npos) << text;
  auto back = fromJSONText<PassRecord>(text);
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_FALSE(back->heap.exact);
  EXPECT_EQ(back->heap.peak, 0u);
}

} // namespace
