//===- DenseReference.h - dense Eigen operators the runtime is checked by -===//
//
// Built from Kronecker products of textbook 2x2 matrices, independently of the
// runtime's kernels (qubit k = bit k, so qubit n-1 is the leftmost factor).
// Shared by the runtime's unit tests so that every test checks against the
// same reference.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_TEST_UNIT_RUNTIME_DENSEREFERENCE_H
#define Q2_TEST_UNIT_RUNTIME_DENSEREFERENCE_H

#include "q2/Runtime/QuantumRuntime.h"

#include <Eigen/Dense>
#include <gtest/gtest.h>
#include <unsupported/Eigen/KroneckerProduct>

#include <cmath>
#include <complex>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace q2::denseref {

using Eigen::Matrix2cd;
using Eigen::MatrixXcd;
using Eigen::VectorXcd;
using cd = std::complex<double>;

inline const cd I1(0, 1);

inline Matrix2cd mat(cd a, cd b, cd c, cd d) {
  Matrix2cd m;
  m << a, b, c, d;
  return m;
}

inline Matrix2cd pauliMatrix(char p) {
  switch (p) {
  case 'X': return mat(0, 1, 1, 0);
  case 'Y': return mat(0, -I1, I1, 0);
  case 'Z': return mat(1, 0, 0, -1);
  default: return Matrix2cd::Identity();
  }
}

inline const Matrix2cd P0 = mat(1, 0, 0, 0), P1 = mat(0, 0, 0, 1);

/// Full 2^n operator with `f[q]` on qubit q and identity elsewhere.
inline MatrixXcd embed(const std::map<int, Matrix2cd> &f, int n) {
  MatrixXcd m = MatrixXcd::Identity(1, 1);
  for (int q = n - 1; q >= 0; --q) {
    auto it = f.find(q);
    Matrix2cd g = it == f.end() ? Matrix2cd::Identity() : it->second;
    MatrixXcd k = Eigen::kroneckerProduct(m, g).eval();
    m = k;
  }
  return m;
}

/// I - Pi + Pi U, Pi = projector onto all controls |1>.
inline MatrixXcd controlled(const MatrixXcd &u, const std::vector<int> &ctrls,
                            int n) {
  std::map<int, Matrix2cd> f;
  for (int c : ctrls)
    f[c] = P1;
  // Pi is diagonal: Pi U scales the rows of U.
  VectorXcd pi = embed(f, n).diagonal();
  return MatrixXcd::Identity(u.rows(), u.cols()) - MatrixXcd(pi.asDiagonal()) +
         pi.asDiagonal() * u;
}

/// Textbook single-qubit matrix of a named gate.
inline Matrix2cd gateMatrix(int g, double th) {
  double c = std::cos(th / 2), s = std::sin(th / 2), r = std::sqrt(0.5);
  switch (g) {
  case Q2_GATE_IDENTITY: return Matrix2cd::Identity();
  case Q2_GATE_H: return mat(r, r, r, -r);
  case Q2_GATE_X: return pauliMatrix('X');
  case Q2_GATE_Y: return pauliMatrix('Y');
  case Q2_GATE_Z: return pauliMatrix('Z');
  case Q2_GATE_S: return mat(1, 0, 0, I1);
  case Q2_GATE_T: return mat(1, 0, 0, std::exp(I1 * M_PI / 4.0));
  case Q2_GATE_RX: return c * Matrix2cd::Identity() - I1 * s * pauliMatrix('X');
  case Q2_GATE_RY: return c * Matrix2cd::Identity() - I1 * s * pauliMatrix('Y');
  case Q2_GATE_RZ: return c * Matrix2cd::Identity() - I1 * s * pauliMatrix('Z');
  case Q2_GATE_PHASESHIFT: return mat(1, 0, 0, std::exp(I1 * th));
  }
  ADD_FAILURE() << "not a 1-qubit gate " << g;
  return Matrix2cd::Identity();
}

/// Dense operator of a named gate on `t` (two-qubit ones as sums of products).
inline MatrixXcd gateOperator(int g, double th, const std::vector<int> &t,
                              int n) {
  switch (g) {
  case Q2_GATE_CNOT:
    return embed({{t[0], P0}}, n) +
           embed({{t[0], P1}, {t[1], pauliMatrix('X')}}, n);
  case Q2_GATE_CZ:
    return embed({{t[0], P0}}, n) +
           embed({{t[0], P1}, {t[1], pauliMatrix('Z')}}, n);
  case Q2_GATE_SWAP: {
    MatrixXcd m = embed({}, n);
    for (char p : {'X', 'Y', 'Z'})
      m += embed({{t[0], pauliMatrix(p)}, {t[1], pauliMatrix(p)}}, n);
    return 0.5 * m;
  }
  default:
    return embed({{t[0], gateMatrix(g, th)}}, n);
  }
}

/// exp(-i th/2 P) for the Pauli word `word` on qubits `t` (word[i] on t[i]).
inline MatrixXcd pauliRotation(const std::string &word,
                               const std::vector<int> &t, double th, int n) {
  std::map<int, Matrix2cd> f;
  for (size_t i = 0; i < t.size(); ++i)
    f[t[i]] = pauliMatrix(word[i]);
  MatrixXcd p = embed(f, n);
  return std::cos(th / 2) * MatrixXcd::Identity(p.rows(), p.cols()) -
         I1 * std::sin(th / 2) * p;
}

inline VectorXcd randomState(int n, std::mt19937_64 &gen) {
  std::normal_distribution<double> d;
  VectorXcd v(int64_t(1) << n);
  for (auto &x : v)
    x = cd(d(gen), d(gen));
  return v.normalized();
}

/// Copies `v` into the register's amplitudes.
inline void load(Q2Register *r, const VectorXcd &v) {
  std::memcpy(q2_rt_state_data(r), v.data(), sizeof(cd) * v.size());
}

/// The register's amplitudes.
inline VectorXcd fetch(Q2Register *r) {
  VectorXcd v(int64_t(1) << q2_rt_num_qubits(r));
  std::memcpy(static_cast<void *>(v.data()), q2_rt_state_data(r),
              sizeof(cd) * v.size());
  return v;
}

/// The runtime's last error message, cleared (empty if none).
inline std::string takeError() {
  const char *e = q2_rt_last_error();
  std::string s = e ? e : "";
  q2_rt_clear_error();
  return s;
}

} // namespace q2::denseref

#endif // Q2_TEST_UNIT_RUNTIME_DENSEREFERENCE_H
