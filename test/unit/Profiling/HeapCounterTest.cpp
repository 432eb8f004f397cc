//===- HeapCounterTest.cpp - The allocator interposer ---------------------===//
//
// This binary links the interposer (q2_link_heap_counter), as q2-opt does:
// every allocation of the process, gtest's included, goes through it.
//
//===----------------------------------------------------------------------===//

#include "q2/Profiling/Heap.h"
#include "q2/Profiling/Heap/HeapCounter.h"

#include "gtest/gtest.h"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <malloc.h>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace q2::profiling;

namespace {

q2_heap_counters readC() {
  q2_heap_counters c;
  q2_heap_read(&c);
  return c;
}

/// glibc's own malloc_usable_size (this binary's is the interposer's).
size_t glibcUsable(void *p) {
  static auto *fn = reinterpret_cast<size_t (*)(void *)>(
      dlsym(RTLD_NEXT, "malloc_usable_size"));
  return fn(p);
}

// Keeps the compiler from pairing or dropping the calls under test.
void *volatile sink;
template <class F> void *opaque(F f) {
  void *p = f();
  sink = p;
  return p;
}

TEST(HeapCounter, InPlaceAndExact) {
  EXPECT_EQ(q2_heap_abi_version(), unsigned(Q2_HEAP_ABI_VERSION));
  EXPECT_TRUE(heapCountingExact());
  q2_heap_counters c = readC();
  EXPECT_GT(c.alloc_count, 0u); // gtest has allocated before main
  EXPECT_GE(c.peak_bytes, c.live_bytes);
}

TEST(HeapCounter, MallocFreeCountRequestedBytes) {
  for (size_t n : {size_t(0), size_t(1), size_t(7), size_t(8), size_t(24),
                   size_t(25), size_t(40), size_t(4096), size_t(100000),
                   size_t(200000), size_t(3) << 20}) {
    q2_heap_counters a = readC();
    void *p = opaque([&] { return std::malloc(n); });
    ASSERT_NE(p, nullptr);
    q2_heap_counters b = readC();
    EXPECT_EQ(b.live_bytes - a.live_bytes, n) << n;
    EXPECT_EQ(b.allocated_bytes - a.allocated_bytes, n) << n;
    EXPECT_EQ(b.alloc_count - a.alloc_count, 1u) << n;
    EXPECT_EQ(malloc_usable_size(p), n) << n;
    // The whole request is usable: writing it must not damage the footer.
    std::memset(p, 0xff, n);
    std::free(p);
    q2_heap_counters c = readC();
    EXPECT_EQ(c.live_bytes, a.live_bytes) << n;
    EXPECT_GE(c.peak_bytes, b.live_bytes) << n;
    EXPECT_EQ(c.foreign_frees, a.foreign_frees) << n;
  }
}

TEST(HeapCounter, FooterFitsEveryChunkSize) {
  // Every size up to 70000 (small chunks, large ones, and mmapped ones past
  // glibc's threshold): the footer lies inside the chunk glibc reports.
  q2_heap_counters a = readC();
  std::vector<void *> blocks;
  for (size_t n = 0; n < 70000; n += (n < 1024 ? 1 : 61)) {
    void *p = std::malloc(n);
    ASSERT_NE(p, nullptr);
    ASSERT_GE(glibcUsable(p), n + 8) << n;
    ASSERT_EQ(malloc_usable_size(p), n);
    blocks.push_back(p);
  }
  for (void *p : blocks)
    std::free(p);
  std::vector<void *>().swap(blocks);
  q2_heap_counters b = readC();
  EXPECT_EQ(b.live_bytes, a.live_bytes);
  EXPECT_EQ(b.foreign_frees, a.foreign_frees);
}

TEST(HeapCounter, Calloc) {
  q2_heap_counters a = readC();
  auto *p = static_cast<unsigned char *>(
      opaque([] { return std::calloc(1000, 3); }));
  ASSERT_NE(p, nullptr);
  for (size_t i = 0; i < 3000; ++i)
    ASSERT_EQ(p[i], 0) << i;
  EXPECT_EQ(readC().live_bytes - a.live_bytes, 3000u);
  std::free(p);
  EXPECT_EQ(readC().live_bytes, a.live_bytes);
  // Overflow of count * size: refused, nothing counted.
  errno = 0;
  EXPECT_EQ(opaque([] { return std::calloc(SIZE_MAX / 2, 3); }), nullptr);
  EXPECT_EQ(errno, ENOMEM);
  EXPECT_EQ(readC().alloc_count, a.alloc_count + 1);
}

TEST(HeapCounter, Realloc) {
  q2_heap_counters a = readC();
  auto *p = static_cast<char *>(opaque([] { return std::malloc(100); }));
  std::memset(p, 'x', 100);
  // Grow (moves through sizes that need another chunk and an mmapped one).
  for (size_t n : {size_t(1000), size_t(50000), size_t(1) << 20}) {
    p = static_cast<char *>(std::realloc(p, n));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(readC().live_bytes - a.live_bytes, n);
    EXPECT_EQ(p[99], 'x');
  }
  // Shrink, in place or not.
  p = static_cast<char *>(std::realloc(p, 10));
  EXPECT_EQ(readC().live_bytes - a.live_bytes, 10u);
  EXPECT_EQ(p[9], 'x');
  q2_heap_counters b = readC();
  // A realloc is one allocation of its new size.
  EXPECT_EQ(b.alloc_count - a.alloc_count, 5u);
  EXPECT_EQ(b.allocated_bytes - a.allocated_bytes,
            100u + 1000u + 50000u + (1u << 20) + 10u);
  // realloc(p, 0) frees (glibc), realloc(null, n) allocates.
  EXPECT_EQ(std::realloc(p, 0), nullptr);
  EXPECT_EQ(readC().live_bytes, a.live_bytes);
  void *q = opaque([] { return std::realloc(nullptr, 33); });
  EXPECT_EQ(readC().live_bytes - a.live_bytes, 33u);
  q = reallocarray(q, 10, 7);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(readC().live_bytes - a.live_bytes, 70u);
  errno = 0;
  EXPECT_EQ(reallocarray(q, SIZE_MAX / 2, 3), nullptr);
  EXPECT_EQ(errno, ENOMEM);
  EXPECT_EQ(readC().live_bytes - a.live_bytes, 70u); // q untouched
  std::free(q);
  EXPECT_EQ(readC().live_bytes, a.live_bytes);
  EXPECT_EQ(readC().foreign_frees, a.foreign_frees);
}

TEST(HeapCounter, AlignedAllocations) {
  std::vector<void *> blocks;
  blocks.reserve(64);
  q2_heap_counters a = readC();
  size_t bytes = 0;
  for (size_t align : {size_t(16), size_t(64), size_t(4096), size_t(65536)})
    for (size_t n : {size_t(1), size_t(100), size_t(5000), size_t(300000)}) {
      void *p = memalign(align, n);
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % align, 0u);
      void *q = aligned_alloc(align, n);
      ASSERT_NE(q, nullptr);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(q) % align, 0u);
      void *r = nullptr;
      ASSERT_EQ(posix_memalign(&r, align, n), 0);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(r) % align, 0u);
      for (void *x : {p, q, r}) {
        EXPECT_EQ(malloc_usable_size(x), n);
        std::memset(x, 1, n);
        blocks.push_back(x);
      }
      bytes += 3 * n;
    }
  void *v = valloc(10);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(v) % 4096, 0u);
  blocks.push_back(v);
  bytes += 10;
  EXPECT_EQ(readC().live_bytes - a.live_bytes, bytes);
  for (void *p : blocks)
    std::free(p);
  EXPECT_EQ(readC().live_bytes, a.live_bytes);
  // Bad alignments are refused without allocating.
  void *r = nullptr;
  EXPECT_EQ(posix_memalign(&r, 3, 10), EINVAL);
  EXPECT_EQ(posix_memalign(&r, 0, 10), EINVAL);
  EXPECT_EQ(readC().foreign_frees, a.foreign_frees);
}

struct alignas(128) Overaligned {
  char data[200];
};

TEST(HeapCounter, CxxNewAndDelete) {
  q2_heap_counters a = readC();
  // (volatile: new/delete pairs of unused objects may be elided)
  std::string *volatile x = new std::string(1000, 'a');
  int *volatile arr = new int[50];
  Overaligned *volatile big = new Overaligned; // new(size_t, align_val_t)
  EXPECT_EQ(reinterpret_cast<uintptr_t>(big) % 128, 0u);
  q2_heap_counters b = readC();
  EXPECT_GE(b.live_bytes - a.live_bytes,
            1001u + sizeof(std::string) + 50 * sizeof(int) +
                sizeof(Overaligned));
  delete x;
  delete[] arr;
  delete big;
  EXPECT_EQ(readC().live_bytes, a.live_bytes);
}

TEST(HeapCounter, GlibcsOwnAllocations) {
  // glibc allocates through the interposable malloc and frees through free:
  // nothing is foreign, nothing leaks from the count.
  q2_heap_counters a = readC();
  char *s = strdup("some text");
  char *t = nullptr;
  ASSERT_GT(asprintf(&t, "%d %s", 42, "words"), 0);
  char *path = realpath("/", nullptr);
  FILE *f = std::fopen("/proc/self/status", "r");
  ASSERT_NE(f, nullptr);
  char *line = nullptr;
  size_t cap = 0;
  ASSERT_GT(getline(&line, &cap, f), 0);
  std::fclose(f);
  char *buf = nullptr;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  std::fprintf(m, "%0500d", 7);
  std::fclose(m);
  EXPECT_GT(readC().live_bytes, a.live_bytes);
  for (void *p : {static_cast<void *>(s), static_cast<void *>(t),
                  static_cast<void *>(path), static_cast<void *>(line),
                  static_cast<void *>(buf)})
    std::free(p);
  EXPECT_EQ(readC().live_bytes, a.live_bytes);
  EXPECT_EQ(readC().foreign_frees, a.foreign_frees);
}

TEST(HeapCounter, ForeignBlocksSubtractNothing) {
  // A block from glibc's own entry point (not through the interposer) is
  // not counted when freed, also when its chunk held a counted block
  // before (whose footer a free erases).
  std::free(opaque([] { return std::malloc(56); }));
  static auto *libcMalloc =
      reinterpret_cast<void *(*)(size_t)>(dlsym(RTLD_NEXT, "malloc"));
  ASSERT_NE(libcMalloc, nullptr);
  void *p = libcMalloc(64);
  std::memset(p, 0xab, 64);
  q2_heap_counters a = readC();
  std::free(p);
  q2_heap_counters b = readC();
  EXPECT_EQ(b.live_bytes, a.live_bytes);
  EXPECT_EQ(b.foreign_frees, a.foreign_frees + 1);
}

TEST(HeapCounter, ThreadsAndCrossThreadFrees) {
  constexpr int kThreads = 4, kRounds = 20000;
  {
    // glibc keeps a thread's TLS vector with its cached stack: start the
    // threads once so that the count below holds only what the test does.
    std::vector<std::thread> warm;
    for (int t = 0; t < kThreads; ++t)
      warm.emplace_back([] {});
    for (std::thread &t : warm)
      t.join();
  }
  q2_heap_counters a = readC();
  // Each thread allocates a batch that stays live while it allocates more,
  // frees half itself and hands the rest to another thread.
  std::vector<std::vector<void *>> handed(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      std::vector<void *> mine;
      for (int i = 0; i < kRounds; ++i) {
        size_t n = 1 + rng() % 3000;
        void *p = (i % 3 == 0) ? std::calloc(1, n)
                  : (i % 3 == 1) ? std::malloc(n)
                                 : aligned_alloc(64, n);
        mine.push_back(p);
        if (mine.size() > 64 && (rng() & 1)) {
          std::free(mine.front());
          mine.erase(mine.begin());
        }
      }
      handed[t] = std::move(mine);
    });
  for (std::thread &t : threads)
    t.join();
  threads.clear();
  q2_heap_counters mid = readC();
  EXPECT_GT(mid.live_bytes, a.live_bytes);
  EXPECT_GE(mid.peak_bytes, mid.live_bytes);
  // Blocks allocated by thread t are freed by thread t+1.
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (void *p : handed[(t + 1) % kThreads])
        std::free(p);
    });
  for (std::thread &t : threads)
    t.join();
  std::vector<std::thread>().swap(threads);
  std::vector<std::vector<void *>>().swap(handed);
  q2_heap_counters b = readC();
  // Everything the threads allocated is gone again (the thread objects and
  // vectors of this test too).
  EXPECT_EQ(b.live_bytes, a.live_bytes);
  EXPECT_EQ(b.foreign_frees, a.foreign_frees);
  EXPECT_GE(b.alloc_count - a.alloc_count, uint64_t(kThreads * kRounds));
}

TEST(HeapCounter, MoreThreadsThanSlots) {
  // Each thread counts into a slot of its own; past the 256 slots threads
  // share atomic totals. Either way nothing is lost.
  std::vector<void *> kept(300);
  std::thread([] {}).join(); // glibc's per-thread data, kept with the stack
  q2_heap_counters a = readC();
  for (int i = 0; i < 300; ++i) {
    std::thread t([&, i] {
      std::free(opaque([] { return std::malloc(100); }));
      kept[i] = std::malloc(1000 + i);
    });
    t.join();
  }
  q2_heap_counters b = readC();
  EXPECT_EQ(b.live_bytes - a.live_bytes, 300u * 1000u + 299u * 300u / 2u);
  EXPECT_GE(b.alloc_count - a.alloc_count, 600u);
  for (void *p : kept)
    std::free(p);
  EXPECT_EQ(readC().live_bytes, a.live_bytes);
  // What the exited threads allocated (and this one freed) counts in the
  // main thread's peaks.
  HeapCounters start;
  HeapWindows::Id w = HeapWindows::open(&start);
  std::free(opaque([] { return std::malloc(1 << 20); }));
  EXPECT_GE(HeapWindows::close(w), start.live + (1u << 20));
}

TEST(HeapCounter, WindowsSeeATransientPeak) {
  HeapCounters start;
  HeapWindows::Id outer = HeapWindows::open(&start);
  HeapWindows::Id inner = HeapWindows::open();
  void *p = opaque([] { return std::malloc(10 << 20); });
  std::free(p);
  HeapCounters end;
  uint64_t innerPeak = HeapWindows::close(inner, &end);
  // A window opened after the spike does not see it.
  HeapWindows::Id later = HeapWindows::open();
  uint64_t laterPeak = HeapWindows::close(later);
  uint64_t outerPeak = HeapWindows::close(outer);
  EXPECT_GE(innerPeak, start.live + (10u << 20));
  EXPECT_LT(end.live, start.live + (1u << 20));
  EXPECT_GE(outerPeak, innerPeak); // nested windows fold into their parent
  EXPECT_LT(laterPeak, start.live + (1u << 20));
  EXPECT_EQ(HeapWindows::close(12345678), 0u); // unknown id
}

TEST(HeapCounter, WindowsOverlapAcrossThreads) {
  // Windows opened and closed in any order (passes on several threads):
  // each sees the allocations made while it was open.
  HeapCounters s;
  HeapWindows::Id a = HeapWindows::open(&s);
  HeapWindows::Id b = 0;
  std::thread t([&] {
    b = HeapWindows::open();
    void *p = opaque([] { return std::malloc(8 << 20); });
    std::free(p);
  });
  t.join();
  uint64_t aPeak = HeapWindows::close(a); // closes before b
  uint64_t bPeak = HeapWindows::close(b);
  EXPECT_GE(aPeak, s.live + (8u << 20));
  EXPECT_GE(bPeak, s.live + (8u << 20));
}

} // namespace
