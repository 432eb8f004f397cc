//===- Blocks.cpp - recorded, powered blocks (q2_rt_block_*) ---------------===//
//
// Between q2_rt_block_begin(count) and q2_rt_block_end() gate calls are
// recorded (as decoded Ops) instead of applied; at the outermost end the
// block, the C-controlled unitary U on the qubits T it touches (C = controls
// common to every recorded call), is applied `count` times by one of
//   replay        the Ops count times with the whole-state kernels;
//   slice replay  per slice of the C = 1 subspace (2^m amplitudes over T,
//                 batched to a cache-sized buffer): gather, all Ops count
//                 times in cache, scatter; slices split over the threads;
//   dense         U built on the identity (column panels in place), U^count
//                 by repeated squaring (Eigen GEMM, cached per register),
//                 applied once as a GEMM over the slices;
// chosen by a cost model (docs/runtime-blocks.md) with constants measured by
// bench-runtime --calibrate.
//
//===----------------------------------------------------------------------===//
#include "DenseGemm.h"
#include "Kernels.h"
#include "RuntimeInternal.h"

#include <Eigen/Core>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <vector>

using namespace q2::runtime;
using Eigen::MatrixXcd;
using cd = std::complex<double>;

namespace {

//===-- settings ----------------------------------------------------------===//
constexpr int kMaxBlockDepth = 16;
constexpr size_t kMaxRecordedOps = size_t(1) << 24;
constexpr int kMaxDenseQubits = 14;   // 4 GiB per matrix: never dense above
constexpr int kMaxSliceQubits = 20;   // slice buffers stay below 16 MiB
constexpr size_t kMaxStats = 256;
constexpr size_t kMaxCacheEntries = 64;
// Dense on invariant cosets only while the state lives on at most this many
// (each is its own cache entry and its own pass over the state).
constexpr size_t kMaxCosets = 16;
// Below this m the matrices are small anyway and the coset scan would cost
// more than it saves (H2: m = 4, microseconds per block).
// Q2_RT_COSETS=0 turns the coset analysis off (to profile the whole-space
// dense path next to it).
int initialCosetMinQubits() {
  const char *env = std::getenv("Q2_RT_COSETS");
  return env && std::strcmp(env, "0") == 0 ? 64 : 6;
}
std::atomic<int> cosetMinQubits{initialCosetMinQubits()};
// The whole-block control search is linear per candidate qubit; bound it
// for pathological recordings.
constexpr size_t kMaxControlSearchOps = size_t(1) << 20;

std::atomic<int> blockMode{1};
std::atomic<int> forcedMethod{-1}; // tests: -1, or a BlockMethod to use
std::atomic<int64_t> memoryLimit{0}; // 0: default
// Slice-replay buffer: 2^13 amplitudes = 128 KiB, well inside the 1 MiB L2
// of the reference machine with room for the Op list. bench-runtime --only
// calibrate, m=8 block on 2^18, 1 thread, 2026-12-03: 2^8 33 ms, 2^9..2^15
// 25.5-31.7 ms (flat within the noise of the loaded machine), 2^16 34 ms,
// 2^17 36 ms; 2^13 also keeps m <= 13 blocks unbatched.
std::atomic<int> sliceBits{13};
// Estimated work (ns) above which block code splits over the pool. Measured
// (bench-runtime --only calibrate, "block paths", same loaded machine as
// the kernel threshold, 2026-12-03): slice replay / dense apply at 2 threads vs
// 1 took 0.99-2.03x for 20-190 us of work, 0.85-0.93 at ~0.3-1 ms, 0.76-0.81
// at 1.4-3.9 ms (in the busiest run 0.96-1.05 throughout: no gain at all).
std::atomic<double> parallelWork{500e3};
// Speedup of P threads taken as 1 + kParallelGain (P - 1): the same runs
// measured 2 threads at 1.0-1.3x of 1 (kernels at 2^20, block paths at
// 1-4 ms), not 2x: the second core is shared with other work.
constexpr double kParallelGain = 0.3;
// A block leaves the reference method (replay) only for an estimate this
// many times cheaper: near-ties are within the noise of the constants.
constexpr double kSwitchMargin = 1.3;

// Measured by `bench-runtime --only calibrate` on the reference machine
// (2-core AMD EPYC Zen 4 VM, 1 MiB L2/core, 32 MiB L3, AVX2 kernels, Eigen
// without -mavx2), 1 thread, thread CPU time, 2026-12-03; see
// docs/runtime-blocks.md.
CostModel model = {
    /*gateInCache=*/0.52,  // rotation mix on a 2^13 buffer
    /*gateOutCache=*/1.25, // the same on 2^21..2^24 states
    /*opOverhead=*/20.0,   // per kernel call on a 4-amplitude buffer
    /*gatherAmp=*/3.4,     // slice gather + scatter, 2^22 state
    /*gemmMac=*/0.62,      // AVX2+FMA Eigen complex GEMM 256..512, 1 thread
                           // (12.5-13.7 GFLOP/s; 64: 0.33)
    /*gemmMacBaseline=*/1.4, // baseline Eigen, same run (5.8-6.0 GFLOP/s;
                             // 1.9 in a busier one)
    /*denseAmp=*/{1.0, 1.5, 2.7, 4.3, 9.8, 20.0, 43.0}, // applyDense, k=1..6
                                                        // (k=0: a phase, set)
    /*cacheBytes=*/double(8u << 20), // 2^18 states still ran at 0.50 ns,
                                     // 2^20 at 1.06 ns per amplitude
};

double defaultMemoryLimit() {
  double phys = physicalMemoryBytes();
  double gib = double(int64_t(1) << 30);
  return phys > 0 ? std::min(gib, phys / 8) : gib;
}
/// Bytes of the state of the block being executed (this thread).
thread_local double stateBytes = 0;
/// The default also keeps the matrices within 1/16 of the state (at least
/// 64 MiB), so that a large state's call stays within ~1.3x its bytes:
/// at 12 + 14 qubits (1 GiB) four 16 MiB coset matrices in the cache, and
/// an unstructured m = 12 block (256 MiB each) goes to slice replay.
double memoryBudget() {
  int64_t l = memoryLimit.load(std::memory_order_relaxed);
  if (l > 0)
    return double(l);
  return std::min(defaultMemoryLimit(),
                  std::max(double(int64_t(64) << 20), stateBytes / 16));
}
double matrixBytes(int m) { return 16.0 * std::ldexp(1.0, 2 * m); }
/// Dense needs U, the power being squared and the result at once.
bool denseFits(int m) {
  return m <= kMaxDenseQubits && 3 * matrixBytes(m) <= memoryBudget();
}

int threads() { return std::max(1, getNumThreads()); }
int chunksFor(double workNs, uint64_t items) {
  if (inParallelRegion() || workNs < parallelWork.load() || items < 2)
    return 1;
  return int(std::min<uint64_t>(uint64_t(threads()), items));
}

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

#ifdef Q2_HAVE_AVX2_TU
std::atomic<bool> gemmAVX2{true};
#endif

bool useGemmAVX2() {
#ifdef Q2_HAVE_AVX2_TU
  return gemmAVX2.load(std::memory_order_relaxed) && avx2Kernels();
#else
  return false;
#endif
}
/// Cost of one complex multiply-add in the GEMM that will run.
double macCost() {
  return useGemmAVX2() ? model.gemmMac : model.gemmMacBaseline;
}

/// C = A * B, column major (C must not alias A or B): the AVX2+FMA build of
/// Eigen's GEMM when the CPU has it (DenseAVX2.cpp, ~2.4x faster), else the
/// baseline one.
void gemm(const cd *A, long lda, const cd *B, long ldb, cd *C, long ldc,
          long m, long k, long n) {
#ifdef Q2_HAVE_AVX2_TU
  if (useGemmAVX2()) {
    avx2::gemm(A, lda, B, ldb, C, ldc, m, k, n);
    return;
  }
#endif
  using Stride = Eigen::OuterStride<>;
  Eigen::Map<const MatrixXcd, 0, Stride> a(A, m, k, Stride(lda));
  Eigen::Map<const MatrixXcd, 0, Stride> b(B, k, n, Stride(ldb));
  Eigen::Map<MatrixXcd, 0, Stride> c(C, m, n, Stride(ldc));
  c.noalias() = a * b;
}

/// Software pdep: the low bits of x spread onto the set bits of mask.
uint64_t depositBits(uint64_t x, uint64_t mask) {
  uint64_t r = 0;
  for (uint64_t m = mask; m && x; m &= m - 1, x >>= 1)
    if (x & 1)
      r |= m & (~m + 1);
  return r;
}
uint64_t lowBits(int n) { return n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1; }

//===-- invariant subspaces -----------------------------------------------===//
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

void addFlips(const Op *ops, size_t len, Cosets &c) {
  for (size_t i = 0; i < len && c.d < c.m; ++i) {
    const Op &op = ops[i];
    switch (op.kind) {
    case kOp2x2: {
      bool diagonal = op.m[1].re == 0 && op.m[1].im == 0 && op.m[2].re == 0 &&
                      op.m[2].im == 0;
      if (!diagonal)
        c.add(op.a);
      break;
    }
    case kOpSwap:
    case kOpPairs:
      c.add(op.a);
      break;
    case kOpNest:
      addFlips(ops + i + 1, size_t(op.len), c);
      i += size_t(op.len);
      break;
    default: // kOpScale, kOpDiag: phases
      break;
    }
  }
}

/// The invariant cosets of the local Ops on m qubits (Cosets::full(m) when
/// the flips span everything).
Cosets cosetsOf(const std::vector<Op> &local, int m) {
  Cosets c;
  c.m = m;
  addFlips(local.data(), local.size(), c);
  if (c.d == m)
    return Cosets::full(m);
  return c;
}

//===-- recording ---------------------------------------------------------===//
struct Recorder {
  int depth = 0;         // open levels (also those past the limit)
  bool poisoned = false; // an error inside: dropped at the outermost end
  Register *reg = nullptr;
  uint64_t regHandle = 0;
  int64_t count = 0;
  std::vector<Op> ops; // capacity reused across blocks
  size_t open[kMaxBlockDepth] = {};
};
thread_local Recorder rec;

//===-- stats -------------------------------------------------------------===//
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
          s.cosets == cosets) {
        ++s.occurrences;
        s.reused += reused;
        s.seconds += secs;
        s.products += products;
        return;
      }
    if (list.size() + 1 >= kMaxStats) { // the last entry collects the rest
      if (list.size() + 1 == kMaxStats)
        list.push_back(
            Q2BlockStat{-1, -1, -1, -1, 0, -1, 0, 0.0, -1, 0, 0, 0});
      Q2BlockStat &s = list.back();
      ++s.occurrences;
      s.reused += reused;
      s.seconds += secs;
      s.products += products;
      return;
    }
    list.push_back(Q2BlockStat{m, nc, count, gates, 1, int32_t(method),
                               int32_t(reused), secs, applied, products,
                               denseDim, cosets});
  }
};
thread_local Stats stats;

//===-- progress ----------------------------------------------------------===//
struct Progress {
  Q2BlockProgressFn fn = nullptr;
  void *user = nullptr;
  int64_t done = 0;
};
thread_local Progress progress;
void notifyProgress(int method, double secs) {
  if (progress.fn)
    progress.fn(progress.user, ++progress.done, secs, int32_t(method));
}

//===-- shape -------------------------------------------------------------===//
struct Shape {
  uint64_t C = 0, T = 0;
  int m = 0;
  bool any = false;  // at least one non-nested Op
  double apps = 0;   // Op applications per execution (nested expanded)
  int64_t calls = 0; // Ops in the list (nested bodies once)
};

/// Applications of ops[0, len) per execution, nested counts expanded.
double applications(const Op *ops, size_t len) {
  double a = 0;
  for (size_t i = 0; i < len; ++i) {
    if (ops[i].kind == kOpNest) {
      a += double(ops[i].count) * applications(ops + i + 1, size_t(ops[i].len));
      i += size_t(ops[i].len);
    } else {
      a += 1;
    }
  }
  return a;
}

/// Whether y undoes x (same kernel on the same amplitudes, inverse numbers).
bool undoes(const Op &x, const Op &y) {
  if (x.kind != y.kind || x.kind == kOpNest || x.setMask != y.setMask ||
      x.setValue != y.setValue || x.a != y.a || x.b != y.b)
    return false;
  auto near = [](double p, double q) { return std::abs(p - q) <= 1e-13; };
  auto conjEq = [&](const Cplx &p, const Cplx &q) { // p == conj(q)
    return near(p.re, q.re) && near(p.im, -q.im);
  };
  switch (x.kind) {
  case kOp2x2: // y = x^dagger
    return conjEq(y.m[0], x.m[0]) && conjEq(y.m[1], x.m[2]) &&
           conjEq(y.m[2], x.m[1]) && conjEq(y.m[3], x.m[3]);
  case kOpScale: { // y * x = 1
    double re = x.m[0].re * y.m[0].re - x.m[0].im * y.m[0].im;
    double im = x.m[0].re * y.m[0].im + x.m[0].im * y.m[0].re;
    return near(re, 1) && near(im, 0);
  }
  case kOpSwap:
    return true;
  case kOpPairs: // the rotation by -theta: same cosine, opposite sine
    return near(x.m[0].re, y.m[0].re) && near(x.m[0].im, y.m[0].im) &&
           near(x.m[1].re, -y.m[1].re) && near(x.m[1].im, -y.m[1].im);
  case kOpDiag:
    return near(x.m[0].re, y.m[0].re) && near(x.m[0].im, -y.m[0].im);
  default:
    return false;
  }
}

/// A sufficient condition for x y = y x: disjoint qubits, or the same
/// one-qubit matrix on the same target under other controls (the CNOTs of a
/// ladder onto one qubit), or two diagonal Ops.
bool commutes(const Op &x, const Op &y) {
  if (!(x.touch & y.touch))
    return true;
  bool diagX = x.kind == kOpDiag || x.kind == kOpScale;
  bool diagY = y.kind == kOpDiag || y.kind == kOpScale;
  if (diagX && diagY)
    return true;
  if (x.kind == kOp2x2 && y.kind == kOp2x2 && x.a == y.a &&
      !(x.ctrl & x.a) && !(y.ctrl & y.a) && !(x.ctrl & y.a) &&
      !(y.ctrl & x.a))
    return std::memcmp(x.m, y.m, sizeof x.m) == 0;
  return false;
}

/// Whether qubit bit `c` is a control of the block as a whole: every Op
/// either acts only where c = 1 (c in its effective controls) or leaves c
/// alone, and the Ops of the second kind reduce to nothing (an Op cancels
/// the nearest earlier one it undoes when only Ops it commutes with lie
/// between them). Then the block is the identity where c = 0. This is what
/// a decomposed, controlled Pauli rotation looks like: basis change and
/// CNOT ladder (uncontrolled), a controlled RZ, the mirror ladder and the
/// basis change undone in the same order.
bool blockControlledBy(const Op *ops, size_t len, uint64_t c,
                       std::vector<const Op *> &stack) {
  constexpr size_t kMaxLookBack = 64;
  stack.clear();
  for (size_t i = 0; i < len; ++i) {
    const Op &op = ops[i];
    if (op.ones & c)
      continue;
    if (op.touch & c)
      return false;
    bool cancelled = false;
    for (size_t d = 0; d < stack.size() && d < kMaxLookBack; ++d) {
      size_t j = stack.size() - 1 - d;
      if (undoes(*stack[j], op)) {
        stack.erase(stack.begin() + std::ptrdiff_t(j));
        cancelled = true;
        break;
      }
      if (!commutes(*stack[j], op))
        break;
    }
    if (!cancelled)
      stack.push_back(&op);
  }
  return stack.empty();
}

Shape shapeOf(const Op *ops, size_t len) {
  Shape s;
  uint64_t c = ~uint64_t(0), t = 0, anyOnes = 0;
  bool nested = false;
  for (size_t i = 0; i < len; ++i) {
    if (ops[i].kind == kOpNest) {
      nested = true;
      continue;
    }
    ++s.calls;
    s.any = true;
    c &= ops[i].ones;
    t |= ops[i].touch;
    anyOnes |= ops[i].ones;
  }
  s.C = s.any ? c : 0;
  // Controls of the block as a whole that not every Op carries (only the RZ
  // of a decomposed rotation is controlled): U is then built on fewer
  // qubits and applied controlled. Not looked for across nested blocks.
  if (s.any && !nested && len <= kMaxControlSearchOps) {
    std::vector<const Op *> stack;
    for (uint64_t cand = anyOnes & ~s.C; cand; cand &= cand - 1) {
      uint64_t bit = cand & (~cand + 1);
      if (blockControlledBy(ops, len, bit, stack))
        s.C |= bit;
    }
  }
  s.T = t & ~s.C;
  s.m = __builtin_popcountll(s.T);
  s.apps = applications(ops, len);
  return s;
}

void translateAll(const Op *ops, size_t len, uint64_t C, uint64_t T,
                  std::vector<Op> &out) {
  out.clear();
  out.reserve(len);
  for (size_t i = 0; i < len; ++i)
    out.push_back(translateOp(ops[i], C, T));
}

/// The cache key is the block in local indices only: U does not depend on
/// which qubits T the block acts on (a QPE block whose control wire moves
/// from one estimation wire to the next, as in decomposed Pauli rotations
/// where only the RZ is controlled, reuses U and its powers).
uint64_t hashOps(const std::vector<Op> &ops, uint64_t) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&](uint64_t x) {
    h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0x100000001b3ull;
  };
  auto bits = [](double d) {
    uint64_t u;
    std::memcpy(&u, &d, sizeof u);
    return u;
  };
  for (const Op &op : ops) {
    mix(uint64_t(op.kind) | uint64_t(op.gate) << 8 | uint64_t(op.adjoint) << 16);
    mix(op.ctrl);
    mix(op.ones);
    mix(op.touch);
    mix(op.setMask);
    mix(op.setValue);
    mix(op.a);
    mix(op.b);
    mix(bits(op.param));
    for (const Cplx &z : op.m) {
      mix(bits(z.re));
      mix(bits(z.im));
    }
    mix(uint64_t(op.count));
    mix(uint64_t(op.len));
  }
  return h;
}

//===-- cache -------------------------------------------------------------===//
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

} // namespace

struct q2::runtime::BlockCache {
  std::vector<std::unique_ptr<CacheEntry>> entries;
  uint64_t tick = 0;
  double bytes = 0;

  /// d = -1: the whole space (d = m). The coset (d, rep) is part of the
  /// key: the same Ops with the coset analysis off (tests, Q2_RT_COSETS)
  /// are a whole-space entry with rep 0 too.
  CacheEntry *find(uint64_t hash, uint64_t T, const std::vector<Op> &ops,
                   uint64_t rep = 0, int d = -1) {
    for (auto &e : entries)
      if (e->hash == hash && e->rep == rep && e->d == (d < 0 ? e->m : d) &&
          e->ops.size() == ops.size() &&
          std::equal(ops.begin(), ops.end(), e->ops.begin(), sameOp)) {
        e->lastUse = ++tick;
        return e.get();
      }
    return nullptr;
  }
  CacheEntry *insert(uint64_t hash, uint64_t T, int m, int d, uint64_t rep,
                     const std::vector<Op> &ops) {
    if (entries.size() >= kMaxCacheEntries) { // drop the least recently used
      auto victim = entries.end();
      for (auto it = entries.begin(); it != entries.end(); ++it)
        if (!(*it)->pinned &&
            (victim == entries.end() || (*it)->lastUse < (*victim)->lastUse))
          victim = it;
      if (victim != entries.end()) {
        dropPowers(**victim);
        entries.erase(victim);
      }
    }
    auto e = std::make_unique<CacheEntry>();
    e->hash = hash;
    e->T = T;
    e->m = m;
    e->d = d;
    e->rep = rep;
    e->ops = ops;
    e->lastUse = ++tick;
    entries.push_back(std::move(e));
    return entries.back().get();
  }
  void dropPowers(CacheEntry &e) {
    bytes -= double(e.powers.size()) * matrixBytes(e.d);
    e.powers.clear();
  }
  /// Makes room for `need` bytes within the budget, evicting matrices of
  /// least recently used entries other than `keep`. False: no room.
  bool reserve(double need, const CacheEntry *keep) {
    double budget = memoryBudget();
    while (bytes + need > budget) {
      CacheEntry *victim = nullptr;
      for (auto &e : entries)
        if (e.get() != keep && !e->powers.empty() &&
            (!victim || e->lastUse < victim->lastUse))
          victim = e.get();
      if (!victim)
        return false;
      dropPowers(*victim);
    }
    return true;
  }
  /// Moves mtx into the cache if the budget allows; returns the cached
  /// matrix, or null (mtx untouched) when it does not fit. When only e's
  /// own powers are left, its smallest ones above U go first: powers are
  /// built upwards (wire k of a QPE program squares wire k-1's), so the
  /// newest is the one the next call starts from. Keeping the oldest
  /// instead made every later wire redo the squarings from them (k + 2
  /// products for wire k instead of 1). The callers hold no pointer to a
  /// power of e other than U across a store.
  const MatrixXcd *store(CacheEntry &e, int64_t exp, MatrixXcd &mtx) {
    auto it = e.powers.find(exp);
    if (it != e.powers.end())
      return &it->second;
    double need = matrixBytes(e.d);
    if (!reserve(need, &e)) {
      while (bytes + need > memoryBudget()) {
        auto victim = e.powers.upper_bound(1);
        if (victim == e.powers.end() || victim->first > exp)
          return nullptr; // only U, or larger powers than this one
        e.powers.erase(victim);
        bytes -= need;
      }
    }
    bytes += need;
    return &e.powers.emplace(exp, std::move(mtx)).first->second;
  }
};

void q2::runtime::BlockCacheDeleter::operator()(BlockCache *c) const {
  delete c;
}

namespace {

//===-- dense helpers -----------------------------------------------------===//
/// Dense matrix products computed by this thread (Q2BlockStat::products).
thread_local int64_t denseProducts = 0;

/// R = A * B (no aliasing), columns of the result split over the threads.
void matmul(const MatrixXcd &A, const MatrixXcd &B, MatrixXcd &R) {
  ++denseProducts;
  // The split below is the only parallelism: should Eigen ever be built
  // with OpenMP, its own threads must not multiply ours.
  static const bool eigenSerial = (Eigen::setNbThreads(1), true);
  (void)eigenSerial;
  R.resize(A.rows(), B.cols());
  double work = double(A.rows()) * double(A.cols()) * double(B.cols()) *
                macCost();
  // Eigen packs all of A for every column block: use a few wide blocks
  // (4 per thread, at least 32 columns) rather than many narrow ones.
  const Eigen::Index cols = B.cols();
  int chunks = chunksFor(work, uint64_t(cols) / 32);
  const Eigen::Index step =
      std::max<Eigen::Index>(32, (cols + 4 * chunks - 1) / (4 * chunks));
  uint64_t blocks = uint64_t((cols + step - 1) / step);
  dynamicFor(chunks, blocks, [&](int, uint64_t b) {
    Eigen::Index lo = Eigen::Index(b) * step, w = std::min(step, cols - lo);
    gemm(A.data(), long(A.rows()), B.data() + lo * B.rows(), long(B.rows()),
         R.data() + lo * R.rows(), long(R.rows()), long(A.rows()),
         long(A.cols()), long(w));
  });
}

/// v <- (C-controlled M on T) v for a 2^n interleaved array: the slices of
/// the C = 1 subspace, gathered as columns of a dim x Kp panel, one GEMM,
/// scattered back. M acts on the local indices `members` (one invariant
/// coset, dim = M's size) or, when null, on all 2^m.
void applyControlledDense(double *v, int n, uint64_t T, uint64_t C,
                          const MatrixXcd &M,
                          const std::vector<uint64_t> *members = nullptr) {
  uint64_t dim = uint64_t(M.rows());
  uint64_t O = lowBits(n) & ~(T | C);
  int nO = __builtin_popcountll(O);
  uint64_t K = uint64_t(1) << nO;
  // At least 256 slices per GEMM where there are that many: with fewer
  // columns a large U (m = 12: 256 MiB) is streamed from memory once per
  // panel instead of being reused from cache.
  int dbits = 63 - __builtin_clzll(dim);
  int pb = std::max(0, std::min(nO, std::max(sliceBits.load() - dbits, 8)));
  uint64_t Kp = uint64_t(1) << pb, panels = K >> pb;
  std::vector<uint64_t> off(dim);
  for (uint64_t l = 0; l < dim; ++l)
    off[l] = depositBits(members ? (*members)[l] : l, T);
  double work = double(K) * double(dim) * double(dim) * macCost();
  int chunks = chunksFor(work, panels);
  auto *amps = reinterpret_cast<cd *>(v);
  std::vector<MatrixXcd> Xs(static_cast<size_t>(chunks)), Ys(static_cast<size_t>(chunks));
  // Slices that are all zero stay zero and are skipped: in a QPE circuit
  // the estimation wires after the current one are still |0>, so wire j
  // finds 2^j of its slices non-zero, and the GEMMs shrink accordingly.
  std::vector<std::vector<uint64_t>> live(static_cast<size_t>(chunks));
  dynamicFor(chunks, panels, [&](int w, uint64_t p) {
    MatrixXcd &X = Xs[size_t(w)], &Y = Ys[size_t(w)];
    std::vector<uint64_t> &cols = live[size_t(w)];
    X.resize(static_cast<Eigen::Index>(dim), static_cast<Eigen::Index>(Kp));
    Y.resize(static_cast<Eigen::Index>(dim), static_cast<Eigen::Index>(Kp));
    cols.clear();
    for (uint64_t j = 0; j < Kp; ++j) {
      const cd *src = amps + (depositBits(p * Kp + j, O) | C);
      cd *col = X.col(Eigen::Index(cols.size())).data();
      bool nonzero = false;
      for (uint64_t l = 0; l < dim; ++l) {
        col[l] = src[off[l]];
        nonzero |= col[l] != cd(0, 0);
      }
      if (nonzero)
        cols.push_back(j);
    }
    if (cols.empty())
      return;
    gemm(M.data(), long(dim), X.data(), long(dim), Y.data(), long(dim),
         long(dim), long(dim), long(cols.size()));
    for (size_t c = 0; c < cols.size(); ++c) {
      cd *dst = amps + (depositBits(p * Kp + cols[c], O) | C);
      const cd *col = Y.col(Eigen::Index(c)).data();
      for (uint64_t l = 0; l < dim; ++l)
        dst[off[l]] = col[l];
    }
  });
}

//===-- cost model --------------------------------------------------------===//
struct Estimate {
  double replay, slice, dense;
};

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

/// Products of the binary method: U^(2^j) for j = s..h, each cached or the
/// square of the one before, times the ones count has a bit for. *start
/// (if given) gets s, so the estimate and the computation agree on it.
double binaryProducts(const CacheEntry *e, int64_t count, bool *fromCache,
                      int *start = nullptr) {
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

/// Cost (ns) of each method for `count` executions of a block with `apps`
/// Op applications per execution, m local qubits, on the C = 1 subspace of
/// `amps` amplitudes of a 2^n array; dense works on `cosets` invariant
/// cosets of 2^d states each (d = m, cosets = 1 without that structure).
Estimate estimate(int n, double amps, int m, double apps, int64_t count,
                  const CacheEntry *e, bool inCacheSpace, int d = -1,
                  double cosets = 1) {
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

//===-- dense power -------------------------------------------------------===//
struct DenseResult {
  const MatrixXcd *matrix = nullptr; // owned by the cache or by `own`
  MatrixXcd own;
  bool reused = false;
};

void denseMatrix(BlockCache &cache, const std::vector<Op> &local, uint64_t T,
                 const Cosets &cs, uint64_t rep, int64_t count, int mode,
                 DenseResult &out);

/// U of the local Ops (m qubits) on the identity: column panels of U are
/// (m + p)-qubit buffers (column bits as spectators), in place, split over
/// the threads. Nested blocks are either powered densely (cheaper, or mode
/// 2) and applied as a controlled dense step, or replayed. With d < m, U on
/// the coset of `rep` only (2^d x 2^d): each panel's columns are the
/// coset's basis states in a scratch buffer, and U's rows are read from the
/// coset's members (the other amplitudes are exactly 0).
void buildUnitary(BlockCache &cache, const std::vector<Op> &local,
                  const Cosets &cs, uint64_t rep, int mode, MatrixXcd &U) {
  int m = cs.m;
  uint64_t dim = uint64_t(1) << m;
  bool onCoset = cs.d < m;
  uint64_t cols = uint64_t(1) << cs.d;
  std::vector<uint64_t> members;
  if (onCoset) {
    cs.members(rep, members);
    U.resize(Eigen::Index(cols), Eigen::Index(cols));
  } else {
    U.setIdentity(Eigen::Index(dim), Eigen::Index(dim));
  }
  // Nested blocks at this level: decide and precompute their powers.
  struct NestPlan {
    uint64_t C = 0, T = 0;
    DenseResult dense;
    bool useDense = false;
  };
  std::vector<NestPlan> plans(local.size());
  for (size_t i = 0; i < local.size(); ++i) {
    const Op &op = local[i];
    if (op.kind != kOpNest)
      continue;
    size_t len = size_t(op.len);
    if (op.count > 0) {
      Shape s = shapeOf(&local[i + 1], len);
      if (s.any) {
        std::vector<Op> inner;
        translateAll(&local[i + 1], len, s.C, s.T, inner);
        CacheEntry *e = cache.find(hashOps(inner, s.T), s.T, inner);
        double amps = std::ldexp(1.0, 2 * m - __builtin_popcountll(s.C));
        Estimate est = estimate(2 * m, amps, s.m, s.apps, op.count, e, true);
        if (choose(est, mode, s.m) == kDense) {
          plans[i].useDense = true;
          plans[i].C = s.C;
          plans[i].T = s.T;
          denseMatrix(cache, inner, s.T, Cosets::full(s.m), 0, op.count, mode,
                      plans[i].dense);
          // A later plan may evict this one's cache entry: keep a copy.
          if (plans[i].dense.matrix != &plans[i].dense.own) {
            plans[i].dense.own = *plans[i].dense.matrix;
            plans[i].dense.matrix = &plans[i].dense.own;
          }
        }
      }
    }
    i += len;
  }
  int p = std::max(0, std::min(cs.d, sliceBits.load() - m));
  uint64_t P = uint64_t(1) << p, panels = cols >> p;
  double work = applications(local.data(), local.size()) * double(cols) *
                double(dim) * model.gateInCache;
  int chunks = chunksFor(work, panels);
  double *base = onCoset ? nullptr : reinterpret_cast<double *>(U.data());
  std::vector<std::vector<cd>> scratch(size_t(onCoset ? chunks : 0));
  dynamicFor(chunks, panels, [&](int w, uint64_t pi) {
    {
      double *buf = onCoset ? nullptr : base + 2 * pi * P * dim;
      if (onCoset) {
        std::vector<cd> &sb = scratch[size_t(w)];
        sb.assign(P * dim, cd(0, 0));
        for (uint64_t c = 0; c < P; ++c)
          sb[c * dim + members[pi * P + c]] = 1;
        buf = reinterpret_cast<double *>(sb.data());
      }
      int nb = m + p;
      for (size_t i = 0; i < local.size(); ++i) {
        const Op &op = local[i];
        if (op.kind != kOpNest) {
          applyOp(buf, nb, op);
          continue;
        }
        if (plans[i].useDense)
          applyControlledDense(buf, nb, plans[i].T, plans[i].C,
                               *plans[i].dense.matrix);
        else
          replayOps(buf, nb, &local[i + 1], size_t(op.len), op.count);
        i += size_t(op.len);
      }
      if (onCoset) {
        const cd *sb = scratch[size_t(w)].data();
        for (uint64_t c = 0; c < P; ++c) {
          cd *col = U.col(Eigen::Index(pi * P + c)).data();
          for (uint64_t j = 0; j < cols; ++j)
            col[j] = sb[c * dim + members[j]];
        }
      }
    }
  });
}

void denseMatrix(BlockCache &cache, const std::vector<Op> &local, uint64_t T,
                 const Cosets &cs, uint64_t rep, int64_t count, int mode,
                 DenseResult &out) {
  uint64_t hash = hashOps(local, T);
  CacheEntry *e = cache.find(hash, T, local, rep, cs.d);
  if (!e)
    e = cache.insert(hash, T, cs.m, cs.d, rep, local);
  struct Pin { // nested computations must not evict this entry
    CacheEntry *e;
    bool prev;
    explicit Pin(CacheEntry *x) : e(x), prev(x->pinned) { e->pinned = true; }
    ~Pin() { e->pinned = prev; }
  } pin(e);
  auto cached = [&](int64_t ex) -> const MatrixXcd * {
    auto it = e->powers.find(ex);
    return it == e->powers.end() ? nullptr : &it->second;
  };
  if (const MatrixXcd *hit = cached(count)) {
    out.matrix = hit;
    out.reused = true;
    return;
  }
  // U itself.
  MatrixXcd Ulocal;
  const MatrixXcd *U = cached(1);
  if (!U) {
    buildUnitary(cache, local, cs, rep, mode, Ulocal);
    U = cache.store(*e, 1, Ulocal);
    if (!U)
      U = &Ulocal;
  } else {
    out.reused = true;
  }
  if (count == 1) {
    out.matrix = U;
    if (U == &Ulocal) {
      out.own = std::move(Ulocal);
      out.matrix = &out.own;
    }
    return;
  }
  // Shortest path: a cached U^e with count = e * 2^s (s squarings), else
  // the binary method from the largest cached U^(2^a).
  int64_t bestE = 0;
  int bestS = 64;
  for (auto &[ex, mtx] : e->powers) {
    (void)mtx;
    if (ex > 1 && count % ex == 0) {
      uint64_t q = uint64_t(count / ex);
      if ((q & (q - 1)) == 0 && __builtin_ctzll(q) < bestS) {
        bestS = __builtin_ctzll(q);
        bestE = ex;
      }
    }
  }
  int h = 63 - __builtin_clzll(uint64_t(count));
  bool binaryReuses = false;
  int start = 0;
  double binaryCost = binaryProducts(e, count, &binaryReuses, &start);
  MatrixXcd acc, sq, tmp;
  if (bestE && bestS <= binaryCost) {
    out.reused = true;
    const MatrixXcd *cur = cached(bestE);
    int64_t ex = bestE;
    for (int s = 0; s < bestS; ++s) {
      matmul(*cur, *cur, tmp);
      ex *= 2;
      sq.swap(tmp);
      const MatrixXcd *kept = cache.store(*e, ex, sq);
      cur = kept ? kept : &sq;
    }
    if (cached(count)) {
      out.matrix = cached(count);
    } else {
      out.own = std::move(sq);
      out.matrix = &out.own;
    }
    return;
  }
  out.reused = out.reused || binaryReuses;
  // Binary method: cur runs through U^(2^j), j = start..h, from the cache
  // where it is there, else squared from the one before. A store only
  // evicts powers below the one stored, never a U^(2^j) still ahead.
  const MatrixXcd *cur = start > 0 ? cached(int64_t(1) << start) : U;
  bool haveAcc = false;
  for (int j = start; j <= h; ++j) {
    if (j > start) {
      if (const MatrixXcd *c = cached(int64_t(1) << j)) {
        cur = c;
      } else {
        matmul(*cur, *cur, tmp);
        sq.swap(tmp);
        const MatrixXcd *kept = cache.store(*e, int64_t(1) << j, sq);
        cur = kept ? kept : &sq;
      }
    }
    if ((uint64_t(count) >> j) & 1) {
      if (!haveAcc) {
        acc = *cur;
        haveAcc = true;
      } else {
        matmul(*cur, acc, tmp); // powers of U commute
        acc.swap(tmp);
      }
    }
  }
  if (const MatrixXcd *kept = cache.store(*e, count, acc)) {
    out.matrix = kept;
  } else {
    out.own = std::move(acc);
    out.matrix = &out.own;
  }
}

//===-- slice replay ------------------------------------------------------===//
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

/// The cosets of cs on which the C = 1 subspace of reg has a non-zero
/// amplitude (their representatives, into reps). False when there are more
/// than kMaxCosets of them (dense then works on the whole space).
bool liveCosets(Register *reg, const Shape &s, const Cosets &cs,
                std::vector<uint64_t> &reps) {
  int n = int(reg->numQubits), m = s.m;
  uint64_t dim = uint64_t(1) << m;
  std::vector<uint64_t> repOf(dim), off(dim);
  std::map<uint64_t, int> index;
  std::vector<int> idx(dim);
  for (uint64_t l = 0; l < dim; ++l) {
    off[l] = depositBits(l, s.T);
    uint64_t r = cs.rep(l);
    auto it = index.emplace(r, int(index.size())).first;
    idx[l] = it->second;
    repOf[l] = r;
  }
  size_t total = index.size();
  std::vector<char> live(total, 0);
  size_t found = 0;
  uint64_t O = lowBits(n) & ~(s.T | s.C);
  uint64_t K = uint64_t(1) << __builtin_popcountll(O);
  const cd *amp = reinterpret_cast<const cd *>(data(reg));
  reps.clear();
  for (uint64_t k = 0; k < K && found < total; ++k) {
    const cd *src = amp + (depositBits(k, O) | s.C);
    for (uint64_t l = 0; l < dim; ++l)
      if (src[off[l]] != cd(0, 0) && !live[size_t(idx[l])]) {
        live[size_t(idx[l])] = 1;
        reps.push_back(repOf[l]);
        if (++found == total)
          break;
      }
  }
  if (reps.empty())
    reps.push_back(0); // an all-zero subspace: one (cheap) coset
  std::sort(reps.begin(), reps.end());
  return reps.size() <= kMaxCosets;
}

} // namespace

//===-- engine entry points -----------------------------------------------===//
bool q2::runtime::recording() { return rec.depth > 0; }

void q2::runtime::resetRecording() {
  rec.depth = 0;
  rec.poisoned = false;
  rec.reg = nullptr;
  rec.regHandle = 0;
  rec.ops.clear();
  if (rec.ops.capacity() > (size_t(1) << 16))
    rec.ops.shrink_to_fit(); // a huge block does not pin its memory
}

bool q2::runtime::recordOp(const char *fn, Register *reg, const Op &op) {
  if (rec.depth == 0)
    return false;
  if (rec.poisoned)
    return true;
  if (!rec.reg) {
    rec.reg = reg;
    rec.regHandle = reg->handle;
  } else if (rec.reg != reg) {
    setError("%s: all gates of a block must act on one register", fn);
    rec.poisoned = true;
    return true;
  }
  if (rec.ops.size() >= kMaxRecordedOps) {
    setError("%s: a block may record at most %zu gates", fn, kMaxRecordedOps);
    rec.poisoned = true;
    return true;
  }
  rec.ops.push_back(op);
  return true;
}

void q2::runtime::executeBlock(Register *reg, const Op *ops, size_t len,
                               int64_t count) {
  auto t0 = std::chrono::steady_clock::now();
  const int64_t products0 = denseProducts;
  int mode = blockMode.load(std::memory_order_relaxed);
  int64_t recorded = 0;
  for (size_t i = 0; i < len; ++i)
    recorded += ops[i].kind != kOpNest;
  // Every method but the reference (mode 0) runs the block with its
  // Clifford frames folded away when that removes Ops (CliffordFold.cpp).
  thread_local std::vector<Op> folded;
  if (folded.capacity() > (size_t(1) << 16) && len < (size_t(1) << 16))
    std::vector<Op>().swap(folded); // a huge block does not pin its memory
  if (mode != 0 && count != 0 && foldCliffords(ops, len, folded) &&
      folded.size() < len) {
    ops = folded.data();
    len = folded.size();
  }
  Shape s = shapeOf(ops, len);
  int n = int(reg->numQubits);
  stateBytes = 16.0 * std::ldexp(1.0, n);
  int64_t denseDim = 0, numCosets = 0;
  auto finish = [&](int method, bool reused) {
    double secs = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - t0)
                      .count();
    stats.add(s.m, __builtin_popcountll(s.C), count, recorded, s.calls,
              method, reused, secs, denseProducts - products0, denseDim,
              numCosets);
    notifyProgress(method, secs);
  };
  if (count == 0 || !s.any) {
    finish(kReplay, false);
    return;
  }
  flushFusion(reg);
  if (mode == 0) {
    replayOps(data(reg), n, ops, len, count);
    finish(kReplay, false);
    return;
  }
  std::vector<Op> local;
  translateAll(ops, len, s.C, s.T, local);
  if (!reg->cache)
    reg->cache.reset(new BlockCache);
  // Invariant cosets of U (block diagonal) and the ones the state has
  // amplitude on: dense then works on those 2^d x 2^d blocks only.
  Cosets cs = s.m >= cosetMinQubits.load(std::memory_order_relaxed)
                  ? cosetsOf(local, s.m)
                  : Cosets::full(s.m);
  std::vector<uint64_t> reps{0};
  if (cs.d < s.m && denseFits(cs.d) && !liveCosets(reg, s, cs, reps))
    cs = Cosets::full(s.m), reps.assign(1, 0);
  CacheEntry *e =
      reg->cache->find(hashOps(local, s.T), s.T, local, reps[0], cs.d);
  double amps = std::ldexp(1.0, n - __builtin_popcountll(s.C));
  Estimate est = estimate(n, amps, s.m, s.apps, count, e, false, cs.d,
                          double(reps.size()));
  int method = choose(est, mode, cs.d);
  int forced = forcedMethod.load(std::memory_order_relaxed);
  if (forced == kReplay || forced == kSliceReplay ||
      (forced == kDense && denseFits(cs.d)))
    method = forced;
  bool reused = false;
  switch (method) {
  case kReplay:
    replayOps(data(reg), n, ops, len, count);
    break;
  case kSliceReplay:
    sliceReplay(data(reg), n, ops, len, s.T, s.C, count, s.apps);
    break;
  default: {
    std::vector<uint64_t> members;
    for (uint64_t r : reps) {
      DenseResult d;
      denseMatrix(*reg->cache, local, s.T, cs, r, count, mode, d);
      if (cs.d < s.m)
        cs.members(r, members);
      applyControlledDense(data(reg), n, s.T, s.C, *d.matrix,
                           cs.d < s.m ? &members : nullptr);
      reused = reused || d.reused;
    }
    denseDim = int64_t(1) << cs.d;
    numCosets = int64_t(reps.size());
    break;
  }
  }
  finish(method, reused);
}

const CostModel &q2::runtime::costModel() { return model; }
void q2::runtime::setCostModel(const CostModel &m) { model = m; }
void q2::runtime::denseProduct(const std::complex<double> *A,
                               const std::complex<double> *B,
                               std::complex<double> *C, long m, long k,
                               long n) {
  gemm(A, m, B, k, C, m, m, k, n);
}
int q2::runtime::getBlockMode() { return blockMode.load(); }
bool q2::runtime::setGemmAVX2(bool on) {
#ifdef Q2_HAVE_AVX2_TU
  return gemmAVX2.exchange(on);
#else
  (void)on;
  return false;
#endif
}
int q2::runtime::setForcedBlockMethod(int method) {
  return forcedMethod.exchange(method);
}
int q2::runtime::setCosetMinQubits(int m) { return cosetMinQubits.exchange(m); }
int q2::runtime::setSliceBufferBits(int bits) {
  return sliceBits.exchange(std::max(0, std::min(bits, 24)));
}
double q2::runtime::setBlockParallelWork(double ns) {
  return parallelWork.exchange(ns);
}

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

// Only the C ABI is exported from libq2_runtime.so.
#pragma GCC visibility push(default)
extern "C" {

void q2_rt_block_begin(int64_t count) {
  if (errorPending() || rec.poisoned) {
    // Keep begin/end balanced so the matching end finds its level.
    ++rec.depth;
    rec.poisoned = true;
    return;
  }
  if (count < 0) {
    setError("q2_rt_block_begin: negative count %lld", (long long)count);
    ++rec.depth;
    rec.poisoned = true;
    return;
  }
  // Repeated squaring loses unitarity in proportion to the count; above
  // this the result is not exact to 1e-6 (docs/runtime-blocks.md).
  if (count > Q2_MAX_POWER_COUNT) {
    setError("q2_rt_block_begin: count %lld is above %lld (2^32), the largest "
             "power the runtime computes exactly",
             (long long)count, (long long)Q2_MAX_POWER_COUNT);
    ++rec.depth;
    rec.poisoned = true;
    return;
  }
  if (rec.depth >= kMaxBlockDepth) {
    setError("q2_rt_block_begin: blocks nested deeper than %d levels",
             kMaxBlockDepth);
    ++rec.depth;
    rec.poisoned = true;
    return;
  }
  try {
    if (rec.depth == 0) {
      rec.ops.clear();
      rec.reg = nullptr;
      rec.regHandle = 0;
      rec.count = count;
    } else {
      Op nest;
      nest.kind = kOpNest;
      nest.count = count;
      rec.open[rec.depth] = rec.ops.size();
      rec.ops.push_back(nest);
    }
  } catch (...) {
    setError("q2_rt_block_begin: internal error: out of memory");
    rec.poisoned = true;
  }
  ++rec.depth;
}

void q2_rt_block_end(void) {
  if (rec.depth == 0) {
    setError("q2_rt_block_end: no open block (q2_rt_block_end without "
             "q2_rt_block_begin)");
    return;
  }
  --rec.depth;
  if (rec.poisoned || errorPending()) {
    if (rec.depth == 0)
      resetRecording();
    return;
  }
  if (rec.depth > 0) { // close a nested level
    size_t at = rec.open[rec.depth];
    rec.ops[at].len = int64_t(rec.ops.size() - at - 1);
    return;
  }
  try {
    if (rec.reg) {
      Register *reg = lookupRegister(
          reinterpret_cast<const Q2Register *>(uintptr_t(rec.regHandle)));
      if (!reg)
        setError("q2_rt_block_end: the block's register was deallocated");
      else
        executeBlock(reg, rec.ops.data(), rec.ops.size(), rec.count);
    }
  } catch (const std::bad_alloc &) {
    setError("q2_rt_block_end: internal error: out of memory");
  } catch (const std::exception &ex) {
    setError("q2_rt_block_end: internal error: %s", ex.what());
  } catch (...) {
    setError("q2_rt_block_end: internal error: unknown exception");
  }
  resetRecording();
}

int32_t q2_rt_set_block_mode(int32_t mode) {
  if (mode < 0 || mode > 2) {
    setError("q2_rt_set_block_mode: mode %d is not 0, 1 or 2", mode);
    return blockMode.load();
  }
  return blockMode.exchange(mode);
}

int64_t q2_rt_set_block_memory_limit(int64_t bytes) {
  int64_t prev = memoryLimit.exchange(bytes > 0 ? bytes : 0);
  return prev > 0 ? prev : int64_t(defaultMemoryLimit());
}

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
