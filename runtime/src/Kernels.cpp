//===- Kernels.cpp - kernel dispatch and the worker pool -------------------===//
#include "Kernels.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace q2::runtime {

IndexSet makeIndexSet(uint64_t mask, uint64_t value) {
  IndexSet s;
  s.mask = mask;
  s.value = value & mask;
  for (uint64_t m = mask; m; m &= m - 1) // set bits only: this is per call
    s.pos[s.numPos++] = __builtin_ctzll(m);
  return s;
}

//===-- dispatch ----------------------------------------------------------===//
static bool cpuHasAVX2() {
#if defined(Q2_HAVE_AVX2_TU) && (defined(__x86_64__) || defined(__i386__))
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

static std::atomic<const KernelTable *> activeTable{nullptr};

const KernelTable &genericKernels() { return generic::table; }
const KernelTable *avx2Kernels() {
  static const bool ok = cpuHasAVX2();
  return ok ? &avx2::table : nullptr;
}

const KernelTable &kernels() {
  const KernelTable *t = activeTable.load(std::memory_order_relaxed);
  if (!t) {
    t = avx2Kernels();
    if (!t)
      t = &generic::table;
    activeTable.store(t, std::memory_order_relaxed);
  }
  return *t;
}

bool selectKernels(bool useAVX2) {
  if (useAVX2 && !avx2Kernels())
    return false;
  activeTable.store(useAVX2 ? avx2Kernels() : &generic::table);
  return true;
}

//===-- threading ---------------------------------------------------------===//
namespace {

constexpr int kMaxThreads = 256;

int64_t initialThreshold() {
  if (const char *env = std::getenv("Q2_RT_PAR_THRESHOLD")) {
    char *end = nullptr;
    long long v = std::strtoll(env, &end, 10);
    if (end != env && v >= 0)
      return v;
  }
  // bench-runtime --only calibrate, 2-core Zen 4 VM shared with other
  // builds (load 3-4), 2026-12-03: 2 threads beat 1 only from 2^20 amplitudes
  // (t2/t1 at 2^18 / 2^20: 2x2 1.17 / 0.57, pairs 1.19-1.28 / 0.89-0.97,
  // diag 1.17-2.5 / 0.53-1.01, swap 0.95-1.01 / 0.95-1.05, dense k=4
  // 1.08 / 0.53-1.06; the pool round trip was 70-140 us). On an idle
  // machine the crossover is lower (2^14 was the old default).
  return int64_t(1) << 19;
}

int hardwareThreads() {
  unsigned h = std::thread::hardware_concurrency();
  return h == 0 ? 1 : std::min<int>(int(h), kMaxThreads);
}

std::atomic<int64_t> threshold{initialThreshold()};
thread_local bool inRegion = false; // running a chunk of a parallel region
std::atomic<int> numThreads{hardwareThreads()};

/// Persistent workers: forking threads per gate would dwarf the work.
class Pool {
public:
  explicit Pool(int n) {
    for (int i = 1; i < n; ++i)
      workers.emplace_back([this, i] { loop(i); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> g(m);
      stop = true;
    }
    cv.notify_all();
    for (auto &t : workers)
      t.join();
  }
  int size() const { return int(workers.size()) + 1; }

  void run(int chunks, uint64_t count, ChunkFn f, void *c) {
    {
      std::lock_guard<std::mutex> g(m);
      fn = f;
      ctx = c;
      numChunks = chunks;
      total = count;
      pending = chunks - 1;
      ++generation;
    }
    cv.notify_all();
    bool prev = inRegion;
    inRegion = true;
    runChunk(0);
    inRegion = prev;
    std::unique_lock<std::mutex> g(m);
    doneCv.wait(g, [&] { return pending == 0; });
  }

private:
  void runChunk(int c) {
    uint64_t lo = total * uint64_t(c) / uint64_t(numChunks);
    uint64_t hi = total * uint64_t(c + 1) / uint64_t(numChunks);
    if (lo < hi)
      fn(ctx, c, lo, hi);
  }
  void loop(int id) {
    inRegion = true; // workers only ever run chunks
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> g(m);
        cv.wait(g, [&] { return stop || generation != seen; });
        if (stop)
          return;
        seen = generation;
        if (id >= numChunks)
          continue;
      }
      runChunk(id);
      std::lock_guard<std::mutex> g(m);
      if (--pending == 0)
        doneCv.notify_one();
    }
  }

  std::vector<std::thread> workers;
  std::mutex m;
  std::condition_variable cv, doneCv;
  bool stop = false;
  uint64_t generation = 0;
  ChunkFn fn = nullptr;
  void *ctx = nullptr;
  int numChunks = 0;
  uint64_t total = 0;
  int pending = 0;
};

std::mutex poolMutex; // one parallel region at a time; others run serially
std::unique_ptr<Pool> pool;

} // namespace

int parallelChunks(uint64_t numAmps, uint64_t count) {
  int t = numThreads.load(std::memory_order_relaxed);
  if (t <= 1 || int64_t(numAmps) <= threshold.load(std::memory_order_relaxed))
    return 1;
  return int(std::min<uint64_t>(uint64_t(t), count));
}

bool inParallelRegion() { return inRegion; }

void parallelFor(uint64_t numAmps, uint64_t count, ChunkFn fn, void *ctx) {
  parallelForChunks(parallelChunks(numAmps, count), count, fn, ctx);
}

void parallelForChunks(int chunks, uint64_t count, ChunkFn fn, void *ctx) {
  if (chunks > int(std::min<uint64_t>(count, uint64_t(kMaxThreads))))
    chunks = int(std::min<uint64_t>(count, uint64_t(kMaxThreads)));
  // A chunk that calls back in (e.g. a kernel inside a slice worker) runs
  // serially: the pool is busy with the region it belongs to, and the
  // caller's thread must not try to lock poolMutex it already holds.
  if (chunks > 1 && !inRegion) {
    std::unique_lock<std::mutex> g(poolMutex, std::try_to_lock);
    if (g.owns_lock()) {
      int t = numThreads.load(std::memory_order_relaxed);
      if (!pool || pool->size() != t) {
        pool.reset();
        try {
          pool = std::make_unique<Pool>(t);
        } catch (...) { // no threads to be had: stay serial
          pool.reset();
        }
      }
      if (pool && std::min(chunks, t) > 1) {
        pool->run(std::min(chunks, t), count, fn, ctx);
        return;
      }
    }
  }
  if (count)
    fn(ctx, 0, 0, count);
}

int64_t getParallelThreshold() { return threshold.load(); }
int64_t setParallelThreshold(int64_t amps) {
  return threshold.exchange(amps < 0 ? 0 : amps);
}
int getNumThreads() { return numThreads.load(); }
int setNumThreads(int n) {
  if (n <= 0)
    n = hardwareThreads();
  return numThreads.exchange(std::min(n, kMaxThreads));
}

} // namespace q2::runtime
