//===- DenseAVX2.cpp - complex GEMM through Eigen built for AVX2+FMA -------===//
//
// The dense block path spends its time in complex GEMMs; Eigen compiled for
// the baseline ISA (SSE2) runs them at ~4 GFLOP/s, with AVX2+FMA ~2.4x
// faster (bench-runtime --only calibrate). This file is compiled with
// -mavx2 -mfma (see CMakeLists) and only called after the CPUID check of
// Kernels.cpp. To keep the AVX2 code out of the baseline TUs:
//  - Eigen's namespace is renamed by macro, so no Eigen template instance of
//    this file has the same mangled name as one of the other files (which
//    the linker would otherwise merge, picking either copy for everyone);
//  - RuntimeTests (DenseAVX2Symbols) checks that every weak symbol defined
//    here is in the renamed namespace, i.e. that no std:: instance compiled
//    for AVX2 can be merged with the baseline ones.
// Nothing else of the runtime may be included here (it includes Eigen).
//
//===----------------------------------------------------------------------===//
#define Eigen q2_eigen_avx2
#include <Eigen/Core>
#undef Eigen

#include "DenseGemm.h"

namespace q2::runtime::avx2 {

void gemm(const std::complex<double> *A, long lda, const std::complex<double> *B,
          long ldb, std::complex<double> *C, long ldc, long m, long k,
          long n) {
  using namespace q2_eigen_avx2;
  using M = Matrix<std::complex<double>, Dynamic, Dynamic>;
  Map<const M, 0, OuterStride<>> a(A, m, k, OuterStride<>(lda));
  Map<const M, 0, OuterStride<>> b(B, k, n, OuterStride<>(ldb));
  Map<M, 0, OuterStride<>> c(C, m, n, OuterStride<>(ldc));
  c.noalias() = a * b;
}

} // namespace q2::runtime::avx2
