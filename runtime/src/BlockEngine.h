//===- BlockEngine.h - the block engine's parts (private) -------*- C++ -*-===//
//
// What the files of the block engine share: its settings and limits, the
// shape of a recorded block and its invariant cosets, the per-register
// cache of powers, the cost model's estimate and the three methods.
//   Blocks.cpp          executeBlock: shape, cost model, method, stats
//   BlockRecording.cpp  q2_rt_block_begin/end: recording gate calls as Ops
//   BlockStats.cpp      per-thread stats and progress (q2_rt_block_stats)
//   BlockSettings.cpp   modes, limits, memory budget, threads, GEMM dispatch
//   BlockShape.cpp      controls and targets of a block, invariant cosets
//   BlockCache.cpp      cached powers per register (LRU within the budget)
//   BlockCostModel.cpp  the estimate of each method (and fusionPays)
//   BlockDense.cpp      U on the identity, U^count, the controlled GEMM
//   BlockSliceReplay.cpp  replay per cache-sized slice
// Only for runtime/src: not installed, not part of the ABI.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_RUNTIME_BLOCKENGINE_H
#define Q2_RUNTIME_BLOCKENGINE_H

#include "RuntimeInternal.h"

#include <Eigen/Core>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <complex>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace q2::runtime {
namespace blocks {

using Eigen::MatrixXcd;
using cd = std::complex<double>;

//===-- limits ------------------------------------------------------------===//
constexpr int kMaxBlockDepth = 16;
constexpr size_t kMaxRecordedOps = size_t(1) << 24;
constexpr int kMaxDenseQubits = 14;   // 4 GiB per matrix: never dense above
constexpr int kMaxSliceQubits = 20;   // slice buffers stay below 16 MiB
constexpr size_t kMaxStats = 256;
constexpr size_t kMaxCacheEntries = 64;
// Dense on invariant cosets only while the state lives on at most this many
// (each is its own cache entry and its own pass over the state).
constexpr size_t kMaxCosets = 16;
// The whole-block control search is linear per candidate qubit; bound it
// for pathological recordings.
constexpr size_t kMaxControlSearchOps = size_t(1) << 20;
// Speedup of P threads taken as 1 + kParallelGain (P - 1): the same runs
// measured 2 threads at 1.0-1.3x of 1 (kernels at 2^20, block paths at
// 1-4 ms), not 2x: the second core is shared with other work.
constexpr double kParallelGain = 0.3;
// A block leaves the reference method (replay) only for an estimate this
// many times cheaper: near-ties are within the noise of the constants.
constexpr double kSwitchMargin = 1.3;

//===-- settings (BlockSettings.cpp) --------------------------------------===//
/// Blocks of at least this many qubits are searched for invariant cosets.
extern std::atomic<int> cosetMinQubits;
/// q2_rt_set_block_mode: 0 replay, 1 cost model, 2 dense when it fits.
extern std::atomic<int> blockMode;
/// Tests: -1, or a BlockMethod to use.
extern std::atomic<int> forcedMethod;
/// q2_rt_set_block_memory_limit (0: the default).
extern std::atomic<int64_t> memoryLimit;
/// Slice-replay buffer: 2^sliceBits amplitudes.
extern std::atomic<int> sliceBits;
/// Estimated work (ns) above which block code splits over the pool.
extern std::atomic<double> parallelWork;
/// The cost-model constants in use.
extern CostModel model;
/// Bytes of the state of the block being executed (this thread).
extern thread_local double stateBytes;

double defaultMemoryLimit();
/// Bytes the block cache and a dense computation may use.
double memoryBudget();
inline double matrixBytes(int m) { return 16.0 * std::ldexp(1.0, 2 * m); }
/// Dense needs U, the power being squared and the result at once.
bool denseFits(int m);
int threads();
/// Threads to use for `workNs` of work over `items` independent items.
int chunksFor(double workNs, uint64_t items);

/// Calls f(worker, i) for i in [0, items) on `chunks` threads that claim
/// items one at a time (a thread that starts late, the other core being
/// busy, takes fewer); worker in [0, chunks) is unique among the threads
/// running at once (for per-worker scratch).
template <typename F> void dynamicFor(int chunks, uint64_t items, F &&f) {
  if (chunks <= 1 || items <= 1) {
    for (uint64_t i = 0; i < items; ++i)
      f(0, i);
    return;
  }
  std::atomic<uint64_t> next{0};
  parallelForEachChunked(chunks, uint64_t(chunks),
                         [&](int worker, uint64_t, uint64_t) {
                           for (uint64_t i; (i = next.fetch_add(1)) < items;)
                             f(worker, i);
                         });
}
/// Cost of one complex multiply-add in the GEMM that will run.
double macCost();
/// C = A * B, column major (C must not alias A or B): the AVX2+FMA build of
/// Eigen's GEMM when the CPU has it (DenseAVX2.cpp, ~2.4x faster), else the
/// baseline one.
void gemm(const cd *A, long lda, const cd *B, long ldb, cd *C, long ldc,
          long m, long k, long n);

/// Software pdep: the low bits of x spread onto the set bits of mask.
inline uint64_t depositBits(uint64_t x, uint64_t mask) {
  uint64_t r = 0;
  for (uint64_t m = mask; m && x; m &= m - 1, x >>= 1)
    if (x & 1)
      r |= m & (~m + 1);
  return r;
}
inline uint64_t lowBits(int n) { return n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1; }

//===-- shape and invariant cosets (BlockShape.cpp) -----------------------===//
/// Every Op maps a basis state x only to x or x ^ f for its flip f (a Pauli
/// rotation's X|Y mask, a 2x2 kernel's target unless the matrix is
/// diagonal, a swap's flip; 0 for phases and diagonal rotations). So U maps
/// each coset x ^ S of the GF(2) span S of the flips into itself, exactly
/// (no Op ever writes outside it), and is block diagonal with 2^(m-d) blocks
/// of 2^d, d = dim S. A Jordan-Wigner molecular Hamiltonian keeps the
/// parity of each spin: d = m - 2, four blocks of 1024 at m = 12 instead of
/// one 4096 x 4096 matrix (64x fewer flops per product, 16x less memory).
/// The proof is structural, from the recorded Ops only.
struct Cosets {
  int m = 0, d = 0;
  std::vector<uint64_t> basis; // reduced echelon, ascending pivots
  uint64_t pivots = 0;

  static Cosets full(int m) {
    Cosets c;
    c.m = c.d = m;
    for (int i = 0; i < m; ++i)
      c.basis.push_back(uint64_t(1) << i);
    c.pivots = lowBits(m);
    return c;
  }
  void add(uint64_t f) {
    for (uint64_t b : basis) // reduce by the pivots (highest bit of each)
      if (f & (uint64_t(1) << (63 - __builtin_clzll(b))))
        f ^= b;
    if (!f)
      return;
    uint64_t piv = uint64_t(1) << (63 - __builtin_clzll(f));
    for (uint64_t &b : basis) // keep the basis fully reduced
      if (b & piv)
        b ^= f;
    basis.push_back(f);
    std::sort(basis.begin(), basis.end());
    pivots |= piv;
    d = int(basis.size());
  }
  /// The coset's representative: x with every pivot bit cleared.
  uint64_t rep(uint64_t x) const {
    for (uint64_t b : basis)
      if (x & (uint64_t(1) << (63 - __builtin_clzll(b))))
        x ^= b;
    return x;
  }
  /// The members of the coset of r, member i = r ^ (basis vectors of i's
  /// bits); for d = m (fully reduced: unit vectors) member i = i.
  void members(uint64_t r, std::vector<uint64_t> &out) const {
    out.resize(size_t(1) << d);
    out[0] = r;
    for (int j = 0; j < d; ++j)
      for (size_t i = 0; i < (size_t(1) << j); ++i)
        out[(size_t(1) << j) + i] = out[i] ^ basis[size_t(j)];
  }
};
/// Adds the flips of ops[0, len) (nested blocks included) to c, until they
/// span its m qubits.
void addFlips(const Op *ops, size_t len, Cosets &c);
/// The invariant cosets of the local Ops on m qubits (Cosets::full(m) when
/// the flips span everything).
Cosets cosetsOf(const std::vector<Op> &local, int m);

struct Shape {
  uint64_t C = 0, T = 0;
  int m = 0;
  bool any = false;  // at least one non-nested Op
  double apps = 0;   // Op applications per execution (nested expanded)
  int64_t calls = 0; // Ops in the list (nested bodies once)
};
/// Applications of ops[0, len) per execution, nested counts expanded.
double applications(const Op *ops, size_t len);
/// Common controls C (including controls of the block as a whole that not
/// every Op carries), targets T, sizes.
Shape shapeOf(const Op *ops, size_t len);
/// ops[0, len) in the local space of (C, T) (translateOp each).
void translateAll(const Op *ops, size_t len, uint64_t C, uint64_t T,
                  std::vector<Op> &out);
/// The cache key of a block in local indices.
uint64_t hashOps(const std::vector<Op> &ops, uint64_t);
/// The cosets of cs on which the C = 1 subspace of reg has a non-zero
/// amplitude (their representatives, into reps). False when there are more
/// than kMaxCosets of them (dense then works on the whole space).
bool liveCosets(Register *reg, const Shape &s, const Cosets &cs,
                std::vector<uint64_t> &reps);

//===-- cache (BlockCache.cpp) --------------------------------------------===//
struct CacheEntry {
  uint64_t hash = 0, T = 0;
  int m = 0;
  int d = 0;        // the matrices are 2^d x 2^d: U on one invariant coset
  uint64_t rep = 0; // the coset's representative (local bits)
  std::vector<Op> ops;
  std::map<int64_t, MatrixXcd> powers; // exponent -> U^e
  uint64_t lastUse = 0;
  bool pinned = false; // in use by a computation further up the stack
};

} // namespace blocks

struct BlockCache {
  std::vector<std::unique_ptr<blocks::CacheEntry>> entries;
  uint64_t tick = 0;
  double bytes = 0;

  /// d = -1: the whole space (d = m). The coset (d, rep) is part of the
  /// key: the same Ops with the coset analysis off (tests, Q2_RT_COSETS)
  /// are a whole-space entry with rep 0 too.
  blocks::CacheEntry *find(uint64_t hash, uint64_t T,
                           const std::vector<Op> &ops, uint64_t rep = 0,
                           int d = -1);
  blocks::CacheEntry *insert(uint64_t hash, uint64_t T, int m, int d,
                             uint64_t rep, const std::vector<Op> &ops);
  void dropPowers(blocks::CacheEntry &e);
  /// Makes room for `need` bytes within the budget, evicting matrices of
  /// least recently used entries other than `keep`. False: no room.
  bool reserve(double need, const blocks::CacheEntry *keep);
  /// Moves mtx into the cache if the budget allows; returns the cached
  /// matrix, or null (mtx untouched) when it does not fit.
  const blocks::MatrixXcd *store(blocks::CacheEntry &e, int64_t exp,
                                 blocks::MatrixXcd &mtx);
};

namespace blocks {

//===-- cost model (BlockCostModel.cpp) -----------------------------------===//
struct Estimate {
  double replay, slice, dense;
};
/// Products of the binary method for U^count given e's cached powers;
/// *start (if given) gets the exponent bit it starts from.
double binaryProducts(const CacheEntry *e, int64_t count, bool *fromCache,
                      int *start = nullptr);
/// Cost (ns) of each method for `count` executions of a block with `apps`
/// Op applications per execution, m local qubits, on the C = 1 subspace of
/// `amps` amplitudes of a 2^n array; dense works on `cosets` invariant
/// cosets of 2^d states each (d = m, cosets = 1 without that structure).
Estimate estimate(int n, double amps, int m, double apps, int64_t count,
                  const CacheEntry *e, bool inCacheSpace, int d = -1,
                  double cosets = 1);
/// The BlockMethod for an estimate under block mode `mode`.
int choose(const Estimate &est, int mode, int m);

//===-- dense (BlockDense.cpp) --------------------------------------------===//
/// Dense matrix products computed by this thread (Q2BlockStat::products).
extern thread_local int64_t denseProducts;

struct DenseResult {
  const MatrixXcd *matrix = nullptr; // owned by the cache or by `own`
  MatrixXcd own;
  bool reused = false;
};
/// R = A * B (no aliasing), the GEMM split over the threads by columns.
void matmul(const MatrixXcd &A, const MatrixXcd &B, MatrixXcd &R);
/// U of the local Ops on the identity (on the coset of `rep`, 2^d x 2^d,
/// when cs.d < cs.m), column panels split over the threads.
void buildUnitary(BlockCache &cache, const std::vector<Op> &local,
                  const Cosets &cs, uint64_t rep, int mode, MatrixXcd &U);
/// U^count of the local Ops on the coset of `rep` (the whole space when
/// cs.d = m), from and into the cache.
void denseMatrix(BlockCache &cache, const std::vector<Op> &local, uint64_t T,
                 const Cosets &cs, uint64_t rep, int64_t count, int mode,
                 DenseResult &out);
/// v <- (C-controlled M on T) v for a 2^n interleaved array; M acts on the
/// local indices `members` (one invariant coset) or, when null, on all 2^m.
void applyControlledDense(double *v, int n, uint64_t T, uint64_t C,
                          const MatrixXcd &M,
                          const std::vector<uint64_t> *members = nullptr);

//===-- slice replay (BlockSliceReplay.cpp) -------------------------------===//
/// ops[0, len) `count` times on each slice of the C = 1 subspace, gathered
/// into a cache-sized buffer.
void sliceReplay(double *v, int n, const Op *ops, size_t len, uint64_t T,
                 uint64_t C, int64_t count, double apps);

//===-- stats (BlockStats.cpp) --------------------------------------------===//
/// Adds one executed block to this thread's stats (q2_rt_block_stats).
void addBlockStat(int64_t m, int64_t nc, int64_t count, int64_t gates,
                  int64_t applied, int method, bool reused, double secs,
                  int64_t products, int64_t denseDim, int64_t cosets);
/// Calls the progress callback of q2_rt_set_block_progress, if any.
void notifyProgress(int method, double secs);

} // namespace blocks
} // namespace q2::runtime

#endif // Q2_RUNTIME_BLOCKENGINE_H
