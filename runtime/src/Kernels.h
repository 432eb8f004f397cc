//===- Kernels.h - state-vector kernels (private) ---------------*- C++ -*-===//
//
// In-place kernels on an interleaved (re, im) double array of 2^n amplitudes.
// The same source (KernelsImpl.inc) is compiled twice, once for the baseline
// ISA and once with AVX2+FMA; kernels() picks one at startup so the library
// still runs on machines without AVX2. No Eigen here on purpose: mixing Eigen
// compiled with different -m flags across TUs would be an ODR hazard.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_RUNTIME_KERNELS_H
#define Q2_RUNTIME_KERNELS_H

#include <cstdint>

namespace q2::runtime {

struct Cplx {
  double re, im;
};

/// The amplitude indices whose bits under `mask` equal `value`; positions
/// holds the set bits of mask in ascending order (for zero insertion).
struct IndexSet {
  uint64_t mask = 0, value = 0;
  int numPos = 0;
  int pos[64];
};
IndexSet makeIndexSet(uint64_t mask, uint64_t value);

struct KernelTable {
  const char *name;
  /// For each y in `set` (which fixes tbit to 0): (v[y], v[y|tbit]) <- m (row
  /// major 2x2) applied to them.
  void (*apply2x2)(double *v, int n, const IndexSet &set, uint64_t tbit,
                   const Cplx *m);
  /// v[y] *= z for y in set.
  void (*scale)(double *v, int n, const IndexSet &set, Cplx z);
  /// swap(v[y], v[y ^ flip]) for y in set (set must pick one of each pair).
  void (*swapFlip)(double *v, int n, const IndexSet &set, uint64_t flip);
  /// Pauli rotation on pairs (y, y ^ xm), y in set (set fixes the highest
  /// bit of xm to 0):  v'[y]  = c v[y]  + eta k sigma(y) v[y^xm]
  ///                   v'[y'] = c v[y'] + k sigma(y) v[y]
  /// with sigma(y) = (-1)^popcount(y & zm).
  void (*pauliPairs)(double *v, int n, const IndexSet &set, uint64_t xm,
                     uint64_t zm, double c, Cplx k, double eta);
  /// v[y] *= (c - i s sigma(y)) for y in set (Z-only Pauli rotation).
  void (*pauliDiag)(double *v, int n, const IndexSet &set, uint64_t zm,
                    double c, double s);
  /// Applies a dense 2^m x 2^m row-major matrix (m <= 6) to the qubits of
  /// targetMask (local bit i = i-th lowest target) where all ctrlMask bits
  /// are 1. Used for fused rotation blocks.
  void (*applyDense)(double *v, int n, uint64_t targetMask, uint64_t ctrlMask,
                     const Cplx *matrix);
  /// sum |v[y]|^2 over y in set.
  double (*normSq)(const double *v, int n, const IndexSet &set);
};

/// The table used by the runtime (AVX2 when the CPU has it).
const KernelTable &kernels();
/// Both variants, for tests (avx2Kernels() is null when unavailable).
const KernelTable &genericKernels();
const KernelTable *avx2Kernels();
/// Selects the active table (tests/benchmarks). Returns false if unavailable.
bool selectKernels(bool useAVX2);

namespace generic {
extern const KernelTable table;
}
namespace avx2 {
extern const KernelTable table;
}

//===-- threading ---------------------------------------------------------===//
/// Calls fn(ctx, chunk, lo, hi) over [0, count) split in chunks; uses the
/// pool only when numAmps exceeds the threading threshold.
using ChunkFn = void (*)(void *ctx, int chunk, uint64_t lo, uint64_t hi);
void parallelFor(uint64_t numAmps, uint64_t count, ChunkFn fn, void *ctx);
/// Number of chunks parallelFor will use for this call (for reductions).
int parallelChunks(uint64_t numAmps, uint64_t count);
/// Calls fn over [0, count) in exactly min(chunks, count) chunks on the pool
/// (block code decides the split itself from its own cost estimate). Inside
/// a pool task (or when the pool is busy) everything runs on the caller.
void parallelForChunks(int chunks, uint64_t count, ChunkFn fn, void *ctx);
/// True on a thread that is running a chunk of a parallel region: nested
/// parallel calls run serially there.
bool inParallelRegion();

template <typename F>
inline void parallelForEachChunked(int chunks, uint64_t count, F &&f) {
  parallelForChunks(
      chunks, count,
      [](void *ctx, int chunk, uint64_t lo, uint64_t hi) {
        (*static_cast<F *>(ctx))(chunk, lo, hi);
      },
      &f);
}

template <typename F>
inline void parallelForEach(uint64_t numAmps, uint64_t count, F &&f) {
  parallelFor(
      numAmps, count,
      [](void *ctx, int chunk, uint64_t lo, uint64_t hi) {
        (*static_cast<F *>(ctx))(chunk, lo, hi);
      },
      &f);
}

int64_t getParallelThreshold();
/// Amplitude count above which kernels use threads (default: see
/// Kernels.cpp, measured by bench-runtime; env Q2_RT_PAR_THRESHOLD
/// overrides). Returns the previous value.
int64_t setParallelThreshold(int64_t amps);
int getNumThreads();
int setNumThreads(int n);

} // namespace q2::runtime

#endif // Q2_RUNTIME_KERNELS_H
