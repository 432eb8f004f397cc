//===- DenseGemm.h - C = A * B for column-major complex matrices -*- C++ -*-===//
// No Eigen here: DenseAVX2.cpp includes it under a renamed namespace.
#ifndef Q2_RUNTIME_DENSEGEMM_H
#define Q2_RUNTIME_DENSEGEMM_H

#include <complex>

namespace q2::runtime {
namespace avx2 {
/// C (m x n, leading dimension ldc) = A (m x k) * B (k x n); column major.
/// Built with -mavx2 -mfma: call only when avx2Kernels() is available.
void gemm(const std::complex<double> *A, long lda, const std::complex<double> *B,
          long ldb, std::complex<double> *C, long ldc, long m, long k, long n);
} // namespace avx2
} // namespace q2::runtime

#endif // Q2_RUNTIME_DENSEGEMM_H
