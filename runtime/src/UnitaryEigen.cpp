//===- UnitaryEigen.cpp - eigenvectors and eigenphases of a unitary -------===//
//
// U = Q diag(e^{i theta}) Q^dagger for the eigenphase path. Eigen's
// Hermitian solver is ~10x faster than its complex Schur form
// (docs/runtime-blocks.md), so U's eigenvectors are taken from a
// Hermitian matrix that has them: M = Im(e^{-i beta} U) (the anti-Hermitian
// part of the rotated U), with eigenvalues sin(theta - beta). With beta the
// direction of U's trace, a spectrum on an arc narrower than a half circle
// (a Trotter step: theta = E dt is small) maps one to one; eigenvalues that
// collide (theta and pi + 2 beta - theta) or nearly so are found by their
// residual and resolved on U itself (a complex Schur form of U on their
// few vectors, exact for a normal matrix). For a symmetric U (U = U^T: a
// symmetric Trotter product of symmetric factors, as order 2 builds it from
// Jordan-Wigner words) Re U and Im U are real symmetric and commute, and M
// is real: the real solver, 3-4x cheaper, gives real eigenvectors.
//
//===----------------------------------------------------------------------===//
#include "BlockEngine.h"
#include "Subspace.h"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>

using namespace q2::runtime;
using namespace q2::runtime::blocks;
using Eigen::Index;

namespace {
/// LAPACK's divide-and-conquer symmetric solvers from OpenBLAS, when the
/// library is installed (Debian: libopenblas0-pthread): dlopen'ed on first
/// use, so the runtime neither links it nor starts its threads unless the
/// eigenphase path runs. Eigen's solver (tridiagonalisation by rank-2
/// updates, implicit QR) is an order of magnitude slower from D = 1024
/// (docs/runtime-blocks.md). Q2_RT_LAPACK=0 keeps Eigen's.
struct Lapack {
  using Dsyevd = void (*)(const char *, const char *, const int *, double *,
                          const int *, double *, double *, const int *, int *,
                          const int *, int *);
  using Zheevd = void (*)(const char *, const char *, const int *, cd *,
                          const int *, double *, cd *, const int *, double *,
                          const int *, int *, const int *, int *);
  Dsyevd dsyevd = nullptr;
  Zheevd zheevd = nullptr;
  void (*setThreads)(int) = nullptr;
  Lapack() {
    const char *env = std::getenv("Q2_RT_LAPACK");
    if (env && env[0] == '0')
      return;
    void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h)
      return;
    dsyevd = reinterpret_cast<Dsyevd>(dlsym(h, "dsyevd_"));
    zheevd = reinterpret_cast<Zheevd>(dlsym(h, "zheevd_"));
    setThreads = reinterpret_cast<void (*)(int)>(
        dlsym(h, "openblas_set_num_threads"));
  }
  static const Lapack &get() {
    static const Lapack l;
    return l;
  }
};

/// Eigenvectors (columns of A, in place) and ascending eigenvalues of the
/// real symmetric A through LAPACK; false when it is not there or fails.
bool lapackSymmetric(Eigen::MatrixXd &A, Eigen::VectorXd &w) {
  const Lapack &l = Lapack::get();
  if (!l.dsyevd)
    return false;
  if (l.setThreads)
    l.setThreads(blocks::threads());
  int n = int(A.rows()), lwork = -1, liwork = -1, info = 0, iq = 0;
  double wq = 0;
  w.resize(n);
  l.dsyevd("V", "L", &n, A.data(), &n, w.data(), &wq, &lwork, &iq, &liwork,
           &info);
  lwork = int(wq);
  liwork = iq;
  std::vector<double> work(size_t(std::max(lwork, 1)));
  std::vector<int> iwork(size_t(std::max(liwork, 1)));
  l.dsyevd("V", "L", &n, A.data(), &n, w.data(), work.data(), &lwork,
           iwork.data(), &liwork, &info);
  return info == 0;
}

/// The same for a complex Hermitian A.
bool lapackHermitian(MatrixXcd &A, Eigen::VectorXd &w) {
  const Lapack &l = Lapack::get();
  if (!l.zheevd)
    return false;
  if (l.setThreads)
    l.setThreads(blocks::threads());
  int n = int(A.rows()), lwork = -1, lrwork = -1, liwork = -1, info = 0,
      iq = 0;
  cd wq = 0;
  double rq = 0;
  w.resize(n);
  l.zheevd("V", "L", &n, A.data(), &n, w.data(), &wq, &lwork, &rq, &lrwork,
           &iq, &liwork, &info);
  lwork = int(wq.real());
  lrwork = int(rq);
  liwork = iq;
  std::vector<cd> work(size_t(std::max(lwork, 1)));
  std::vector<double> rwork(size_t(std::max(lrwork, 1)));
  std::vector<int> iwork(size_t(std::max(liwork, 1)));
  l.zheevd("V", "L", &n, A.data(), &n, w.data(), work.data(), &lwork,
           rwork.data(), &lrwork, iwork.data(), &liwork, &info);
  return info == 0;
}

/// Residual |U q_i - mu_i q_i| of column i (W = U Q), mu_i the Rayleigh
/// quotient.
double residual(const MatrixXcd &W, const MatrixXcd &Q, Index i, cd &mu) {
  mu = Q.col(i).dot(W.col(i)); // q^dagger (U q)
  return (W.col(i) - mu * Q.col(i)).norm();
}
} // namespace

namespace q2::runtime::subspace {

bool unitaryEigen(const MatrixXcd &U, MatrixXcd &Q, std::vector<double> &theta,
                  std::string &why) {
  const Index D = U.rows();
  const double tol = 1e-9;
  cd tr = U.trace();
  double beta = std::abs(tr) > 1e-6 * double(D) ? std::arg(tr) : 0.0;
  cd rot = std::polar(1.0, -beta);
  double asym = (U - U.transpose()).cwiseAbs().maxCoeff();
  Eigen::VectorXd lambda; // M's eigenvalues, ascending
  if (asym <= 1e-12) {
    Eigen::MatrixXd M = (rot * U).imag();
    M = (0.5 * (M + M.transpose())).eval();
    if (lapackSymmetric(M, lambda)) {
      Q = M.cast<cd>();
    } else {
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(M);
      if (es.info() != Eigen::Success) {
        why = "the symmetric eigensolver did not converge";
        return false;
      }
      Q = es.eigenvectors().cast<cd>();
      lambda = es.eigenvalues();
    }
  } else {
    MatrixXcd V = rot * U;
    MatrixXcd M = (V - V.adjoint()) * cd(0, -0.5);
    if (lapackHermitian(M, lambda)) {
      Q = std::move(M);
    } else {
      Eigen::SelfAdjointEigenSolver<MatrixXcd> es(M);
      if (es.info() != Eigen::Success) {
        why = "the Hermitian eigensolver did not converge";
        return false;
      }
      Q = es.eigenvectors();
      lambda = es.eigenvalues();
    }
  }
  MatrixXcd W;
  matmul(U, Q, W);
  std::vector<cd> mu(static_cast<size_t>(D));
  std::vector<Index> bad;
  for (Index i = 0; i < D; ++i)
    if (residual(W, Q, i, mu[size_t(i)]) > tol)
      bad.push_back(i);
  // Groups of (nearly) equal M eigenvalues around each bad column: U on
  // their vectors is a small normal matrix; its Schur vectors are U's
  // eigenvectors there.
  const double gap = 1e-6;
  std::vector<char> done(static_cast<size_t>(D), 0);
  for (Index i : bad) {
    if (done[size_t(i)])
      continue;
    Index lo = i, hi = i;
    while (lo > 0 && lambda[lo] - lambda[lo - 1] < gap)
      --lo;
    while (hi + 1 < D && lambda[hi + 1] - lambda[hi] < gap)
      ++hi;
    Index k = hi - lo + 1;
    if (k == 1 || k > 256) {
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    "eigenvector %lld of U has residual %.1e (a group of %lld "
                    "near-equal eigenvalues of Im(U))",
                    (long long)i, (W.col(i) - mu[size_t(i)] * Q.col(i)).norm(),
                    (long long)k);
      why = buf;
      return false;
    }
    MatrixXcd S = Q.middleCols(lo, k).adjoint() * W.middleCols(lo, k);
    Eigen::ComplexSchur<MatrixXcd> cs(S);
    MatrixXcd Qk = Q.middleCols(lo, k) * cs.matrixU();
    Q.middleCols(lo, k) = Qk;
    W.middleCols(lo, k) = W.middleCols(lo, k) * cs.matrixU();
    for (Index j = lo; j <= hi; ++j) {
      done[size_t(j)] = 1;
      double r = residual(W, Q, j, mu[size_t(j)]);
      if (r > tol) {
        char buf[128];
        std::snprintf(buf, sizeof buf,
                      "eigenvector %lld of U has residual %.1e after "
                      "resolving its group of %lld",
                      (long long)j, r, (long long)k);
        why = buf;
        return false;
      }
    }
  }
  theta.resize(size_t(D));
  for (Index i = 0; i < D; ++i)
    theta[size_t(i)] = std::arg(mu[size_t(i)]);
  return true;
}

} // namespace q2::runtime::subspace
