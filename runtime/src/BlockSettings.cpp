//===- BlockSettings.cpp - block engine settings, budget, GEMM ------------===//
//
// The engine's tunables (mode, forced method, memory limit, slice size,
// parallel threshold, cost-model constants), the memory budget the cache
// and dense work share, how block code uses the threads, and the GEMM the
// dense path runs; their C and C++ setters.
//
//===----------------------------------------------------------------------===//
#include "BlockEngine.h"
#include "DenseGemm.h"
#include "Kernels.h"

#include <cstdlib>
#include <cstring>

using namespace q2::runtime;
using namespace q2::runtime::blocks;

namespace {
// Below this m the matrices are small anyway and the coset scan would cost
// more than it saves (H2: m = 4, microseconds per block).
// Q2_RT_COSETS=0 turns the coset analysis off (to profile the whole-space
// dense path next to it).
int initialCosetMinQubits() {
  const char *env = std::getenv("Q2_RT_COSETS");
  return env && std::strcmp(env, "0") == 0 ? 64 : 6;
}
#ifdef Q2_HAVE_AVX2_TU
std::atomic<bool> gemmAVX2{true};
#endif
} // namespace

namespace q2::runtime::blocks {
std::atomic<int> cosetMinQubits{initialCosetMinQubits()};
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
thread_local double stateBytes = 0;
/// The default keeps the matrices within 1/16 of the state (at least
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
bool denseFits(int m) {
  return m <= kMaxDenseQubits && 3 * matrixBytes(m) <= memoryBudget();
}

int threads() { return std::max(1, getNumThreads()); }
int chunksFor(double workNs, uint64_t items) {
  if (inParallelRegion() || workNs < parallelWork.load() || items < 2)
    return 1;
  return int(std::min<uint64_t>(uint64_t(threads()), items));
}

bool useGemmAVX2() {
#ifdef Q2_HAVE_AVX2_TU
  return gemmAVX2.load(std::memory_order_relaxed) && avx2Kernels();
#else
  return false;
#endif
}
double macCost() {
  return useGemmAVX2() ? model.gemmMac : model.gemmMacBaseline;
}

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
} // namespace q2::runtime::blocks

//===-- C++ setters (tests, bench-runtime) --------------------------------===//
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

// Only the C ABI is exported from libq2_runtime.so.
#pragma GCC visibility push(default)
extern "C" {

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

} // extern "C"
#pragma GCC visibility pop
