//===- BlockStats.cpp - per-thread block stats and progress ---------------===//
//
// What the blocks executed on this thread did (q2_rt_block_stats: one entry
// per distinct shape, method and size), and the progress callback of
// q2_rt_set_block_progress.
//
//===----------------------------------------------------------------------===//
#include "BlockEngine.h"
#include "Subspace.h"

using namespace q2::runtime;
using namespace q2::runtime::blocks;

namespace {
struct Stats {
  std::vector<Q2BlockStat> list;
  Stats() { list.reserve(kMaxStats); }
  void add(int64_t m, int64_t nc, int64_t count, int64_t gates,
           int64_t applied, int method, bool reused, double secs,
           int64_t products, int64_t denseDim, int64_t cosets) {
    for (Q2BlockStat &s : list)
      if (s.num_qubits == m && s.num_controls == nc && s.count == count &&
          s.num_gates == gates && s.num_ops == applied &&
          s.method == method && s.dense_dim == denseDim &&
          s.cosets == cosets && s.path == subspace::statPath &&
          s.subspace_dim == subspace::statDim) {
        ++s.occurrences;
        s.reused += reused;
        s.seconds += secs;
        s.products += products;
        return;
      }
    if (list.size() + 1 >= kMaxStats) { // the last entry collects the rest
      if (list.size() + 1 == kMaxStats)
        list.push_back(
            Q2BlockStat{-1, -1, -1, -1, 0, -1, 0, 0.0, -1, 0, 0, 0, 0, 0, 0});
      Q2BlockStat &s = list.back();
      ++s.occurrences;
      s.reused += reused;
      s.seconds += secs;
      s.products += products;
      return;
    }
    list.push_back(Q2BlockStat{m, nc, count, gates, 1, int32_t(method),
                               int32_t(reused), secs, applied, products,
                               denseDim, cosets, subspace::statPath, 0,
                               subspace::statDim});
  }
};
thread_local Stats stats;

struct Progress {
  Q2BlockProgressFn fn = nullptr;
  void *user = nullptr;
  int64_t done = 0;
};
thread_local Progress progress;
} // namespace

void q2::runtime::blocks::addBlockStat(int64_t m, int64_t nc, int64_t count,
                                       int64_t gates, int64_t applied,
                                       int method, bool reused, double secs,
                                       int64_t products, int64_t denseDim,
                                       int64_t cosets) {
  stats.add(m, nc, count, gates, applied, method, reused, secs, products,
            denseDim, cosets);
}

void q2::runtime::blocks::notifyProgress(int method, double secs) {
  if (progress.fn)
    progress.fn(progress.user, ++progress.done, secs, int32_t(method));
}

// Only the C ABI is exported from libq2_runtime.so.
#pragma GCC visibility push(default)
extern "C" {

int64_t q2_rt_block_stats(Q2BlockStat *out, int64_t capacity) {
  int64_t n = int64_t(stats.list.size());
  if (out && capacity > 0)
    std::copy_n(stats.list.begin(), std::min(n, capacity), out);
  return n;
}

void q2_rt_reset_block_stats(void) { stats.list.clear(); }

void q2_rt_set_block_progress(Q2BlockProgressFn fn, void *user) {
  progress.fn = fn;
  progress.user = user;
  progress.done = 0;
}


} // extern "C"
#pragma GCC visibility pop
