//===- ExactSolver.cpp - Exact energies in an (N, Sz) sector --------------===//
#include "q2/Hamiltonian/ExactSolver.h"
#include "Support.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

#include <Eigen/Dense>

#include <cmath>
#include <complex>

using namespace llvm;
using namespace q2::hamiltonian::detail;

namespace q2::hamiltonian {
namespace {

/// All k-subsets of n bits, in increasing order (Gosper's hack).
std::vector<uint64_t> subsets(unsigned n, unsigned k) {
  std::vector<uint64_t> out;
  if (k == 0) {
    out.push_back(0);
    return out;
  }
  uint64_t v = (uint64_t(1) << k) - 1, limit = uint64_t(1) << n;
  while (v < limit) {
    out.push_back(v);
    uint64_t c = v & -v, r = v + c;
    v = (((r ^ v) >> 2) / c) | r;
  }
  return out;
}

/// Spreads the bits of \p v onto every second bit starting at \p offset.
uint64_t spread(uint64_t v, unsigned offset) {
  uint64_t out = 0;
  for (unsigned i = 0; v; ++i, v >>= 1)
    if (v & 1)
      out |= uint64_t(1) << (2 * i + offset);
  return out;
}

double binomial(unsigned n, unsigned k) {
  double r = 1;
  for (unsigned i = 1; i <= k; ++i)
    r = r * double(n - k + i) / double(i);
  return r;
}

struct Term {
  PauliMask m;
  double coeff;
  unsigned yCount;
};

/// Builds the sector matrix; Scalar is double when every term has an even
/// number of Y (then i^{#Y} is real), std::complex<double> otherwise.
template <typename Scalar>
Error buildAndSolve(const std::vector<Term> &terms,
                    const std::vector<uint64_t> &basis,
                    const DenseMap<uint64_t, unsigned> &index,
                    const std::string &name, double &ground) {
  using Mat = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
  const size_t dim = basis.size();
  Mat H = Mat::Zero(dim, dim);
  DenseMap<uint64_t, Scalar> leak;
  for (size_t col = 0; col < dim; ++col) {
    uint64_t b = basis[col];
    leak.clear();
    for (const Term &t : terms) {
      // sigma(x,z)|b> = i^{#Y} (-1)^{|z & b|} |b ^ x>.
      unsigned e = t.yCount + 2 * (popcount(t.m.z & b) & 1);
      Scalar v;
      if constexpr (std::is_same_v<Scalar, double>)
        v = ((e & 3) == 0 ? t.coeff : -t.coeff); // e is even here
      else
        v = t.coeff * std::complex<double>(e % 4 == 0 ? 1 : e % 4 == 2 ? -1 : 0,
                                           e % 4 == 1 ? 1 : e % 4 == 3 ? -1 : 0);
      uint64_t out = b ^ t.m.x;
      auto it = index.find(out);
      if (it != index.end())
        H(it->second, col) += v;
      else
        leak[out] += v;
    }
    for (auto &[state, amp] : leak)
      if (std::abs(amp) > 1e-8)
        return plainError("exactSectorEnergies(" + name +
                          "): the Hamiltonian does not conserve the electron "
                          "number and Sz (it couples sector state " +
                          Twine(b) + " to " + Twine(state) + ")");
  }
  Eigen::SelfAdjointEigenSolver<Mat> solver(H, Eigen::EigenvaluesOnly);
  if (solver.info() != Eigen::Success)
    return plainError("exactSectorEnergies(" + name +
                      "): the eigensolver did not converge");
  ground = solver.eigenvalues()(0);
  return Error::success();
}

} // namespace

Expected<ExactResult> exactSectorEnergies(const QubitHamiltonian &h,
                                          size_t maxSectorDim) {
  const std::string &name = h.name;
  const unsigned nq = h.numQubits;
  if (nq == 0 || nq > kMaxQubits)
    return plainError("exactSectorEnergies(" + name + "): " + Twine(nq) +
                      " qubits, supported are 1.." + Twine(kMaxQubits));
  if (nq % 2 != 0)
    return plainError("exactSectorEnergies(" + name + "): " + Twine(nq) +
                      " qubits is odd; interleaved alpha/beta spin orbitals "
                      "need an even count");

  // The sector and the HF determinant.
  uint64_t hf = 0;
  unsigned na = 0, nb = 0;
  if (!h.hfOccupation.empty()) {
    if (h.hfOccupation.size() != nq)
      return plainError("exactSectorEnergies(" + name + "): hfOccupation has " +
                        Twine(h.hfOccupation.size()) + " entries for " +
                        Twine(nq) + " qubits");
    for (unsigned q = 0; q < nq; ++q)
      if (h.hfOccupation[q]) {
        hf |= uint64_t(1) << q;
        ++(q % 2 == 0 ? na : nb);
      }
    if (h.numElectrons != 0 &&
        (na + nb != h.numElectrons || int(na) - int(nb) != h.ms2))
      return plainError("exactSectorEnergies(" + name +
                        "): hfOccupation disagrees with numElectrons/ms2");
  } else {
    if (h.numElectrons == 0)
      return plainError("exactSectorEnergies(" + name +
                        "): the number of electrons is unknown, cannot choose "
                        "the (N, Sz) sector");
    int a2 = int(h.numElectrons) + h.ms2, b2 = int(h.numElectrons) - h.ms2;
    if (a2 < 0 || b2 < 0 || a2 % 2 || a2 / 2 > int(nq / 2) || b2 / 2 > int(nq / 2))
      return plainError("exactSectorEnergies(" + name + "): numElectrons = " +
                        Twine(h.numElectrons) + ", ms2 = " + Twine(h.ms2) +
                        " do not fit " + Twine(nq) + " qubits");
    na = unsigned(a2 / 2);
    nb = unsigned(b2 / 2);
    for (unsigned p = 0; p < na; ++p)
      hf |= uint64_t(1) << (2 * p);
    for (unsigned p = 0; p < nb; ++p)
      hf |= uint64_t(1) << (2 * p + 1);
  }

  const unsigned norb = nq / 2;
  double dimD = binomial(norb, na) * binomial(norb, nb);
  if (dimD > double(maxSectorDim))
    return plainError("exactSectorEnergies(" + name + "): the sector (" +
                      Twine(na) + " alpha, " + Twine(nb) +
                      " beta electrons) has dimension " + Twine(uint64_t(dimD)) +
                      ", above the dense-solver limit of " + Twine(maxSectorDim));

  std::vector<Term> terms;
  bool real = true;
  double hfEnergy = 0;
  for (const PauliTerm &t : h.terms) {
    if (Error e = checkPauliWord(t.word, nq))
      return plainError("exactSectorEnergies(" + name + "): " +
                        toString(std::move(e)));
    PauliMask m = toMask(t.word);
    unsigned y = popcount(m.x & m.z);
    real &= (y % 2 == 0);
    terms.push_back({m, t.coeff, y});
    // <HF| sigma |HF> is non-zero only for diagonal (Z-only) strings.
    if (m.x == 0)
      hfEnergy += (popcount(m.z & hf) % 2 ? -t.coeff : t.coeff);
  }

  std::vector<uint64_t> basis;
  basis.reserve(size_t(dimD));
  DenseMap<uint64_t, unsigned> index;
  for (uint64_t a : subsets(norb, na))
    for (uint64_t b : subsets(norb, nb)) {
      uint64_t s = spread(a, 0) | spread(b, 1);
      index[s] = unsigned(basis.size());
      basis.push_back(s);
    }

  ExactResult r{0, hfEnergy, basis.size(), na, nb};
  Error e = real ? buildAndSolve<double>(terms, basis, index, name, r.groundEnergy)
                 : buildAndSolve<std::complex<double>>(terms, basis, index, name,
                                                       r.groundEnergy);
  if (e)
    return std::move(e);
  return r;
}

} // namespace q2::hamiltonian
