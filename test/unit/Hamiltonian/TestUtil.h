//===- TestUtil.h - Shared helpers of the Hamiltonian unit tests -*- C++ -*-===//
#ifndef Q2_TEST_UNIT_HAMILTONIAN_TESTUTIL_H
#define Q2_TEST_UNIT_HAMILTONIAN_TESTUTIL_H

#include "UnitTestUtil.h"
#include "q2/Hamiltonian/Hamiltonian.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <Eigen/Dense>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <complex>
#include <set>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>

namespace q2::hamiltonian::test {

inline std::string dataDir() {
  const char *src = std::getenv("Q2_SOURCE_DIR");
  std::string root = src ? src : Q2_TEST_SOURCE_DIR;
  return root + "/examples/hamiltonians";
}
inline std::string dataFile(const std::string &name) {
  return dataDir() + "/" + name;
}

struct Reference {
  double scf, casci;
};
/// Parses REFERENCE.txt: "name scf=<E> casci=<E>" per line.
inline std::map<std::string, Reference> readReference() {
  std::map<std::string, Reference> out;
  std::ifstream in(dataFile("REFERENCE.txt"));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string name, a, b;
    if (!(ls >> name >> a >> b))
      continue;
    auto value = [](const std::string &kv) {
      return std::stod(kv.substr(kv.find('=') + 1));
    };
    Reference r{};
    for (const std::string &kv : {a, b}) {
      if (kv.rfind("scf=", 0) == 0)
        r.scf = value(kv);
      else if (kv.rfind("casci=", 0) == 0)
        r.casci = value(kv);
    }
    out[name] = r;
  }
  return out;
}

using ::q2::test::TempDir;

using CMat = Eigen::MatrixXcd;

/// Dense matrix of a Pauli sum with qubit 0 as the LEFTMOST Kronecker factor
/// (most significant bit of the row index); built independently of the
/// library's bit-mask code.
inline CMat pauliMatrix(const std::string &word) {
  using C = std::complex<double>;
  CMat out = CMat::Identity(1, 1);
  for (char c : word) {
    CMat p(2, 2);
    switch (c) {
    case 'I': p << 1, 0, 0, 1; break;
    case 'X': p << 0, 1, 1, 0; break;
    case 'Y': p << 0, C(0, -1), C(0, 1), 0; break;
    case 'Z': p << 1, 0, 0, -1; break;
    }
    CMat k(out.rows() * 2, out.cols() * 2);
    for (int i = 0; i < out.rows(); ++i)
      for (int j = 0; j < out.cols(); ++j)
        k.block(2 * i, 2 * j, 2, 2) = out(i, j) * p;
    out = std::move(k);
  }
  return out;
}
inline CMat denseMatrix(const QubitHamiltonian &h) {
  size_t dim = size_t(1) << h.numQubits;
  CMat m = CMat::Zero(dim, dim);
  for (const PauliTerm &t : h.terms)
    m += t.coeff * pauliMatrix(t.word);
  return m;
}

/// Occupation of qubit q in row index `state` under the convention above.
inline int bitOf(size_t state, unsigned q, unsigned n) {
  return int((state >> (n - 1 - q)) & 1);
}

/// Lowest eigenvalue of \p m restricted to basis states with the given
/// numbers of electrons on even (alpha) and odd (beta) qubits.
inline double sectorGround(const CMat &m, unsigned n, unsigned na, unsigned nb) {
  std::vector<size_t> idx;
  for (size_t s = 0; s < size_t(m.rows()); ++s) {
    unsigned a = 0, b = 0;
    for (unsigned q = 0; q < n; ++q)
      (q % 2 ? b : a) += bitOf(s, q, n);
    if (a == na && b == nb)
      idx.push_back(s);
  }
  CMat sub(idx.size(), idx.size());
  for (size_t i = 0; i < idx.size(); ++i)
    for (size_t j = 0; j < idx.size(); ++j)
      sub(i, j) = m(idx[i], idx[j]);
  Eigen::SelfAdjointEigenSolver<CMat> es(sub);
  return es.eigenvalues()(0);
}

template <typename T> T expectOk(llvm::Expected<T> v) {
  if (!v) {
    ADD_FAILURE() << llvm::toString(v.takeError());
    return T{};
  }
  return std::move(*v);
}

/// Returns the error text ("" and a test failure if there was no error).
template <typename T> std::string errorOf(llvm::Expected<T> v) {
  if (v) {
    ADD_FAILURE() << "expected an error";
    return "";
  }
  return llvm::toString(v.takeError());
}

} // namespace q2::hamiltonian::test

#endif // Q2_TEST_UNIT_HAMILTONIAN_TESTUTIL_H
