//===- BlockSliceReplay.cpp - replay per cache-sized slice ----------------===//
//
// The slice-replay method: per slice of the C = 1 subspace, gather the
// amplitudes over T into a buffer that fits the cache, replay all Ops
// `count` times there, scatter back; slices split over the threads.
//
//===----------------------------------------------------------------------===//
#include "BlockEngine.h"

#include <cstring>

namespace q2::runtime::blocks {

/// The buffer holds, for one value of the "group" bits, the amplitudes over
/// T and the batch bits (the lowest free bits, so that together with T they
/// cover the low end of the index and gathers copy long contiguous runs);
/// buffer bit i = the i-th lowest bit of T | batch. The Ops are translated
/// into that layout; batch bits are spectators.
void sliceReplay(double *v, int n, const Op *ops, size_t len, uint64_t T,
                 uint64_t C, int64_t count, double apps) {
  int m = __builtin_popcountll(T);
  uint64_t O = lowBits(n) & ~(T | C);
  int nO = __builtin_popcountll(O);
  int b = std::max(0, std::min(nO, sliceBits.load() - m));
  uint64_t Ob = depositBits(lowBits(b), O); // lowest b free bits: batch
  uint64_t Og = O & ~Ob, L = T | Ob;
  int nb = m + b;
  uint64_t groups = uint64_t(1) << (nO - b), size = uint64_t(1) << nb;
  std::vector<Op> local;
  translateAll(ops, len, C, L, local);
  // Contiguous runs: the trailing ones of L (bits 0..r-1 all in the buffer).
  int r = std::min(__builtin_ctzll(~L), nb);
  uint64_t run = uint64_t(1) << r, numRuns = size >> r;
  std::vector<uint64_t> off(numRuns);
  for (uint64_t k = 0; k < numRuns; ++k)
    off[k] = depositBits(k << r, L);
  double amps = std::ldexp(1.0, n - __builtin_popcountll(C));
  double work = apps * double(count) * amps * model.gateInCache;
  int chunks = chunksFor(work, groups);
  auto *amp = reinterpret_cast<cd *>(v);
  std::vector<std::vector<cd>> bufs(static_cast<size_t>(chunks));
  dynamicFor(chunks, groups, [&](int w, uint64_t g) {
    std::vector<cd> &buf = bufs[size_t(w)];
    buf.resize(size);
    cd *bp = buf.data();
    {
      const uint64_t base = depositBits(g, Og) | C;
      cd *src = amp + base;
      for (uint64_t k = 0; k < numRuns; ++k)
        std::memcpy(static_cast<void *>(bp + k * run), src + off[k],
                    sizeof(cd) * run);
      replayOps(reinterpret_cast<double *>(bp), nb, local.data(), local.size(),
                count);
      for (uint64_t k = 0; k < numRuns; ++k)
        std::memcpy(static_cast<void *>(src + off[k]), bp + k * run,
                    sizeof(cd) * run);
    }
  });
}

} // namespace q2::runtime::blocks
