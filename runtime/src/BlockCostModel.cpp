//===- BlockCostModel.cpp - what each block method costs ------------------===//
//
// Estimated nanoseconds of replay, slice replay and dense for one block
// (constants in BlockSettings.cpp, measured by bench-runtime --calibrate;
// docs/runtime-blocks.md), the choice between them, and the same model's
// answer for rotation/gate fusion (fusionPays).
//
//===----------------------------------------------------------------------===//
#include "BlockEngine.h"
#include "Kernels.h"

#include <limits>

using namespace q2::runtime;
using namespace q2::runtime::blocks;

namespace {
/// Where the binary method for U^count starts: the highest cached U^(2^s)
/// with s at or below count's lowest set bit, else U (s = 0). Starting
/// higher would drop count's bits below s (U^77 from a cached U^32 was
/// computed as U^64).
int binaryStart(const CacheEntry *e, int64_t count) {
  for (int j = __builtin_ctzll(uint64_t(count)); j > 0 && e; --j)
    if (e->powers.count(int64_t(1) << j))
      return j;
  return 0;
}
} // namespace

namespace q2::runtime::blocks {

/// Products of the binary method: U^(2^j) for j = s..h, each cached or the
/// square of the one before, times the ones count has a bit for. *start
/// (if given) gets s, so the estimate and the computation agree on it.
double binaryProducts(const CacheEntry *e, int64_t count, bool *fromCache,
                      int *start) {
  int s = binaryStart(e, count), h = 63 - __builtin_clzll(uint64_t(count));
  if (start)
    *start = s;
  int squarings = 0;
  bool cached = s > 0;
  for (int j = s + 1; j <= h; ++j) {
    if (e && e->powers.count(int64_t(1) << j))
      cached = true;
    else
      ++squarings;
  }
  *fromCache = *fromCache || cached;
  return double(squarings + __builtin_popcountll(uint64_t(count)) - 1);
}

} // namespace q2::runtime::blocks

namespace {
/// Products needed for U^count given the entry's cached powers (0 when the
/// power itself is cached); sets *fromCache when a cached power > 1 is used.
double productsNeeded(const CacheEntry *e, int64_t count, bool *fromCache) {
  *fromCache = false;
  double best = binaryProducts(e, count, fromCache);
  if (!e)
    return best;
  if (e->powers.count(count)) {
    *fromCache = true;
    return 0;
  }
  for (auto &[ex, mtx] : e->powers) {
    (void)mtx;
    if (ex > 1 && count % ex == 0) {
      uint64_t q = uint64_t(count / ex);
      if ((q & (q - 1)) == 0 && __builtin_ctzll(q) < best) {
        best = __builtin_ctzll(q);
        *fromCache = true;
      }
    }
  }
  return best;
}
} // namespace

namespace q2::runtime::blocks {

Estimate estimate(int n, double amps, int m, double apps, int64_t count,
                  const CacheEntry *e, bool inCacheSpace, int d,
                  double cosets) {
  if (d < 0)
    d = m;
  const CostModel &cm = model;
  double inf = std::numeric_limits<double>::infinity();
  double th = 1.0 + kParallelGain * double(threads() - 1);
  double total = apps * double(count);
  bool stateInCache = inCacheSpace || 16.0 * std::ldexp(1.0, n) <= cm.cacheBytes;
  double cState = stateInCache ? cm.gateInCache : cm.gateOutCache;
  Estimate est;
  double replayWork = total * amps * cState;
  est.replay = total * cm.opOverhead +
               (amps > double(getParallelThreshold()) ? replayWork / th
                                                      : replayWork);
  if (m > kMaxSliceQubits || inCacheSpace) {
    est.slice = inf;
  } else {
    double bufAmps = std::max(std::ldexp(1.0, m),
                              std::min(amps, std::ldexp(1.0, sliceBits.load())));
    double buffers = amps / bufAmps;
    double work = total * buffers * cm.opOverhead +
                  total * amps * cm.gateInCache + amps * cm.gatherAmp;
    est.slice = work >= parallelWork.load() && buffers >= 2
                    ? work / std::min(th, buffers)
                    : work;
  }
  if (!denseFits(d)) {
    est.dense = inf;
  } else {
    double dim = std::ldexp(1.0, d), full = std::ldexp(1.0, m);
    bool fromCache = false;
    double products = productsNeeded(e, count, &fromCache);
    bool haveU = e && e->powers.count(1);
    double build = 0;
    if (!(e && e->powers.count(count)) && !haveU) {
      double panels = std::max(1.0, dim * full / std::ldexp(1.0, sliceBits.load()));
      build = apps * (dim * full * cm.gateInCache + panels * cm.opOverhead);
    }
    double gemmNs = products * dim * dim * dim * macCost();
    double apply = amps * dim * macCost() + amps * cm.gatherAmp;
    double work = cosets * (build + gemmNs) + apply;
    est.dense = work >= parallelWork.load() ? work / th : work;
  }
  return est;
}

int choose(const Estimate &est, int mode, int m) {
  if (mode == 0)
    return kReplay;
  if (mode == 2 && denseFits(m))
    return kDense;
  double other = std::min(est.slice, est.dense);
  if (other * kSwitchMargin >= est.replay)
    return kReplay;
  return est.dense < est.slice ? kDense : kSliceReplay;
}

} // namespace q2::runtime::blocks

bool q2::runtime::fusionPays(int k, int n, uint64_t amps, const Op *ops,
                             size_t numOps, uint64_t lowestFixedBit) {
  (void)ops;
  const CostModel &cm = model;
  bool inCache = 16.0 * std::ldexp(1.0, n) <= cm.cacheBytes;
  double cGate = inCache ? cm.gateInCache : cm.gateOutCache;
  double a = double(amps);
  double unfused = double(numOps) * (cm.opOverhead + a * cGate);
  double dim = std::ldexp(1.0, k);
  double build = double(numOps) * (cm.opOverhead + dim * dim * cm.gateInCache);
  // Long runs and the tiled short-run path measured within ~20 % of each
  // other (bench-runtime --calibrate); the table holds the larger.
  (void)lowestFixedBit;
  double perAmp = cm.denseAmp[std::min(k, 6)];
  if (!inCache)
    perAmp = std::max(perAmp, cm.gateOutCache);
  double fused = cm.opOverhead + build + a * perAmp;
  return fused < unfused;
}
