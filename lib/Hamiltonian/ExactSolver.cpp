//===- ExactSolver.cpp - Exact energies in an (N, Sz) sector --------------===//
#include "q2/Hamiltonian/ExactSolver.h"
#include "Support.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

#include <Eigen/Dense>

#include <algorithm>
#include <random>

#include <cmath>
#include <complex>
#include <map>

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

/// Terms with the same X mask map a basis state to the same basis state.
struct Group {
  uint64_t x;
  std::vector<Term> terms;
};

template <typename Scalar> Scalar termPhase(const Term &t, uint64_t b) {
  // sigma(x,z)|b> = i^{#Y} (-1)^{|z & b|} |b ^ x>.
  unsigned e = t.yCount + 2 * (popcount(t.m.z & b) & 1);
  if constexpr (std::is_same_v<Scalar, double>)
    return (e & 3) == 0 ? t.coeff : -t.coeff; // e is even here
  else
    return t.coeff * std::complex<double>(e % 4 == 0 ? 1 : e % 4 == 2 ? -1 : 0,
                                          e % 4 == 1 ? 1 : e % 4 == 3 ? -1 : 0);
}

/// Sector matrix in compressed-column form (column b holds H(., b)).
template <typename Scalar> struct SectorMatrix {
  size_t dim = 0;
  std::vector<uint64_t> colStart; // dim + 1
  std::vector<uint32_t> rows;
  std::vector<Scalar> vals;

  void multiply(const Scalar *x, Scalar *y) const {
    std::fill(y, y + dim, Scalar(0));
    for (size_t c = 0; c < dim; ++c) {
      Scalar xc = x[c];
      for (uint64_t k = colStart[c]; k < colStart[c + 1]; ++k)
        y[rows[k]] += vals[k] * xc;
    }
  }
};

struct Sector {
  std::vector<uint64_t> basis;
  DenseMap<uint64_t, unsigned> index;
  uint64_t evenMask = 0, oddMask = 0;
  unsigned na = 0, nb = 0;
  bool contains(uint64_t s) const {
    return unsigned(popcount(s & evenMask)) == na &&
           unsigned(popcount(s & oddMask)) == nb;
  }
};

/// Builds the sector matrix. \p checkLeaks: verify per state that amplitude
/// leaving the sector cancels (needed unless H is known to commute with
/// N_alpha and N_beta).
template <typename Scalar>
Error buildSectorMatrix(const std::vector<Group> &groups, const Sector &s,
                        bool checkLeaks, const std::string &name,
                        SectorMatrix<Scalar> &m) {
  const size_t dim = s.basis.size();
  m.dim = dim;
  m.colStart.assign(1, 0);
  m.rows.clear();
  m.vals.clear();
  for (size_t col = 0; col < dim; ++col) {
    uint64_t b = s.basis[col];
    for (const Group &g : groups) {
      uint64_t out = b ^ g.x;
      bool inside = g.x == 0 || s.contains(out);
      if (!inside && !checkLeaks)
        continue;
      Scalar v = 0;
      for (const Term &t : g.terms)
        v += termPhase<Scalar>(t, b);
      if (!inside) {
        if (std::abs(v) > 1e-8)
          return plainError("exactSectorEnergies(" + name +
                            "): the Hamiltonian does not conserve the electron "
                            "number and Sz (it couples sector state " +
                            Twine(b) + " to " + Twine(out) + ")");
        continue;
      }
      if (v == Scalar(0))
        continue;
      m.rows.push_back(g.x == 0 ? uint32_t(col) : s.index.find(out)->second);
      m.vals.push_back(v);
    }
    m.colStart.push_back(m.rows.size());
  }
  return Error::success();
}

template <typename Scalar>
Expected<double> denseGround(const SectorMatrix<Scalar> &m,
                             const std::string &name) {
  using Mat = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
  Mat H = Mat::Zero(m.dim, m.dim);
  for (size_t c = 0; c < m.dim; ++c)
    for (uint64_t k = m.colStart[c]; k < m.colStart[c + 1]; ++k)
      H(m.rows[k], c) += m.vals[k];
  Eigen::SelfAdjointEigenSolver<Mat> solver(H, Eigen::EigenvaluesOnly);
  if (solver.info() != Eigen::Success)
    return plainError("exactSectorEnergies(" + name +
                      "): the eigensolver did not converge");
  return solver.eigenvalues()(0);
}

/// Lowest eigenvalue by Lanczos with full reorthogonalisation (classical
/// Gram-Schmidt, twice) and explicit restarts from the Ritz vector. The
/// start vector is a fixed pseudo-random vector: it has components in every
/// symmetry block of the sector (starting from HF alone would stay in the
/// singlets and miss a triplet ground state).
template <typename Scalar>
Error lanczosGround(const SectorMatrix<Scalar> &m, const ExactSolverOptions &o,
                    const std::string &name, ExactResult &r) {
  using Vec = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
  using Mat = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
  const Eigen::Index n = Eigen::Index(m.dim);
  const unsigned maxK = unsigned(std::min<size_t>(std::max(2u, o.maxIterations), m.dim));
  std::mt19937_64 rng(0x51ED270B7A5Cull);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  Vec start(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<Scalar, double>)
      start(i) = uni(rng);
    else
      start(i) = Scalar(uni(rng), uni(rng));
  }
  start.normalize();
  Mat V(n, maxK);
  Vec w(n);
  std::vector<double> alpha, beta;
  double theta = 0;
  for (unsigned restart = 0; restart <= o.maxRestarts; ++restart) {
    V.col(0) = start;
    alpha.clear();
    beta.clear();
    Eigen::VectorXd ritz;
    unsigned k = 0;
    bool converged = false;
    for (; k < maxK; ++k) {
      m.multiply(V.col(k).data(), w.data());
      ++r.iterations;
      double a = std::real(V.col(k).dot(w));
      alpha.push_back(a);
      // Full reorthogonalisation against V(:, 0..k), twice.
      for (int pass = 0; pass < 2; ++pass) {
        Vec proj = V.leftCols(k + 1).adjoint() * w;
        w -= V.leftCols(k + 1) * proj;
      }
      double b = w.norm();
      // Lowest Ritz pair of the (k+1)x(k+1) tridiagonal matrix.
      Eigen::VectorXd d = Eigen::Map<Eigen::VectorXd>(alpha.data(), k + 1);
      Eigen::VectorXd e = Eigen::Map<Eigen::VectorXd>(beta.data(), k);
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> tri;
      tri.computeFromTridiagonal(d, e, Eigen::ComputeEigenvectors);
      if (tri.info() != Eigen::Success)
        return plainError("exactSectorEnergies(" + name +
                          "): the Lanczos tridiagonal eigensolver failed");
      theta = tri.eigenvalues()(0);
      ritz = tri.eigenvectors().col(0);
      r.residual = b * std::fabs(ritz(k));
      if (r.residual <= o.tolerance * std::max(1.0, std::fabs(theta)) ||
          b <= 1e-14 * std::max(1.0, std::fabs(theta)) || k + 1 == m.dim) {
        converged = true;
        ++k;
        break;
      }
      beta.push_back(b);
      if (k + 1 < maxK)
        V.col(k + 1) = w / b;
    }
    if (converged) {
      r.groundEnergy = theta;
      return Error::success();
    }
    // Restart from the Ritz vector.
    start = V.leftCols(k) * ritz.head(k).template cast<Scalar>();
    start.normalize();
  }
  return plainError("exactSectorEnergies(" + name + "): Lanczos did not " +
                    "converge (residual " + fmt(r.residual) + " after " +
                    Twine(r.iterations) + " matrix-vector products)");
}

template <typename Scalar>
Error solveSector(const std::vector<Group> &groups, const Sector &s,
                  bool checkLeaks, const ExactSolverOptions &o,
                  const std::string &name, ExactResult &r) {
  SectorMatrix<Scalar> m;
  if (Error e = buildSectorMatrix(groups, s, checkLeaks, name, m))
    return e;
  r.nonZeros = m.rows.size();
  if (m.dim <= o.denseLimit) {
    auto g = denseGround(m, name);
    if (!g)
      return g.takeError();
    r.groundEnergy = *g;
    return Error::success();
  }
  r.iterative = true;
  return lanczosGround(m, o, name, r);
}

/// The sector (n_alpha, n_beta) and the HF determinant of \p h.
struct SectorSpec {
  unsigned na = 0, nb = 0;
  uint64_t hf = 0;
};

Expected<SectorSpec> sectorOf(const QubitHamiltonian &h) {
  const std::string &name = h.name;
  const unsigned nq = h.numQubits;
  if (nq == 0 || nq > kMaxQubits)
    return plainError("exactSectorEnergies(" + name + "): " + Twine(nq) +
                      " qubits, supported are 1.." + Twine(kMaxQubits));
  if (nq % 2 != 0)
    return plainError("exactSectorEnergies(" + name + "): " + Twine(nq) +
                      " qubits is odd; interleaved alpha/beta spin orbitals "
                      "need an even count");
  SectorSpec s;
  if (!h.hfOccupation.empty()) {
    if (h.hfOccupation.size() != nq)
      return plainError("exactSectorEnergies(" + name + "): hfOccupation has " +
                        Twine(h.hfOccupation.size()) + " entries for " +
                        Twine(nq) + " qubits");
    for (unsigned q = 0; q < nq; ++q)
      if (h.hfOccupation[q]) {
        s.hf |= uint64_t(1) << q;
        ++(q % 2 == 0 ? s.na : s.nb);
      }
    if (h.numElectrons != 0 &&
        (s.na + s.nb != h.numElectrons || int(s.na) - int(s.nb) != h.ms2))
      return plainError("exactSectorEnergies(" + name +
                        "): hfOccupation disagrees with numElectrons/ms2");
    return s;
  }
  if (h.numElectrons == 0)
    return plainError("exactSectorEnergies(" + name +
                      "): the number of electrons is unknown, cannot choose "
                      "the (N, Sz) sector");
  int a2 = int(h.numElectrons) + h.ms2, b2 = int(h.numElectrons) - h.ms2;
  if (a2 < 0 || b2 < 0 || a2 % 2 || a2 / 2 > int(nq / 2) || b2 / 2 > int(nq / 2))
    return plainError("exactSectorEnergies(" + name + "): numElectrons = " +
                      Twine(h.numElectrons) + ", ms2 = " + Twine(h.ms2) +
                      " do not fit " + Twine(nq) + " qubits");
  s.na = unsigned(a2 / 2);
  s.nb = unsigned(b2 / 2);
  for (unsigned p = 0; p < s.na; ++p)
    s.hf |= uint64_t(1) << (2 * p);
  for (unsigned p = 0; p < s.nb; ++p)
    s.hf |= uint64_t(1) << (2 * p + 1);
  return s;
}

/// [H, N_alpha] = 0 and [H, N_beta] = 0, checked in the Pauli algebra:
/// [c sigma(x,z), Z_q] = 2 c sigma(x,z) Z_q if x_q = 1, so
/// [H, sum_{q in S} Z_q] = 2 sum_t c_t sum_{q in S, x_q(t)} sigma_t Z_q, and
/// sigma(x,z) Z_q = +-sigma(x, z ^ e_q) (a sign, never i). Equal words are
/// collected; the commutator vanishes iff every collected coefficient does.
bool commutesWithSpinNumbers(const std::vector<Group> &groups, unsigned nq) {
  for (unsigned parity = 0; parity < 2; ++parity) {
    std::map<std::pair<uint64_t, uint64_t>, double> sum;
    double scale = 0;
    for (const Group &g : groups)
      for (const Term &t : g.terms) {
        scale = std::max(scale, std::fabs(t.coeff));
        for (unsigned q = parity; q < nq; q += 2) {
          uint64_t bit = uint64_t(1) << q;
          if (!(t.m.x & bit))
            continue;
          // sigma(x,z) Z_q = i^{yOld} X^x Z^{z ^ bit}
          //               = i^{yOld - yNew} sigma(x, z ^ bit) = i d sigma'
          // with d = yOld - yNew = +-1 (x_q = 1): a common factor 2i times
          // the real d * c_t.
          unsigned yOld = unsigned(popcount(t.m.x & t.m.z));
          unsigned yNew = unsigned(popcount(t.m.x & (t.m.z ^ bit)));
          int d = int(yOld) - int(yNew);
          sum[{t.m.x, t.m.z ^ bit}] += d * t.coeff;
        }
      }
    for (auto &[w, c] : sum)
      if (std::fabs(c) > 1e-10 * std::max(1.0, scale))
        return false;
  }
  return true;
}

} // namespace

Expected<double> hartreeFockEnergy(const QubitHamiltonian &h) {
  auto s = sectorOf(h);
  if (!s)
    return s.takeError();
  double e = 0;
  for (const PauliTerm &t : h.terms) {
    if (Error err = checkPauliWord(t.word, h.numQubits))
      return plainError("hartreeFockEnergy(" + h.name + "): " +
                        toString(std::move(err)));
    PauliMask m = toMask(t.word);
    // <HF| sigma |HF> is non-zero only for diagonal (Z-only) strings.
    if (m.x == 0)
      e += (popcount(m.z & s->hf) % 2 ? -t.coeff : t.coeff);
  }
  if (!std::isfinite(e))
    return plainError("hartreeFockEnergy(" + h.name + "): not finite");
  return e;
}

Expected<ExactResult> exactSectorEnergies(const QubitHamiltonian &h,
                                          size_t maxSectorDim) {
  ExactSolverOptions o;
  o.maxSectorDim = maxSectorDim;
  return exactSectorEnergies(h, o);
}

Expected<ExactResult> exactSectorEnergies(const QubitHamiltonian &h,
                                          const ExactSolverOptions &opts) {
  const std::string &name = h.name;
  const unsigned nq = h.numQubits;
  auto spec = sectorOf(h);
  if (!spec)
    return spec.takeError();
  const unsigned na = spec->na, nb = spec->nb;
  const unsigned norb = nq / 2;
  double dimD = binomial(norb, na) * binomial(norb, nb);
  if (dimD > double(opts.maxSectorDim))
    return plainError("exactSectorEnergies(" + name + "): the sector (" +
                      Twine(na) + " alpha, " + Twine(nb) +
                      " beta electrons) has dimension " + Twine(uint64_t(dimD)) +
                      ", above the solver limit of " + Twine(opts.maxSectorDim));

  std::vector<Group> groups;
  DenseMap<uint64_t, unsigned> groupOf;
  bool real = true;
  for (const PauliTerm &t : h.terms) {
    if (Error e = checkPauliWord(t.word, nq))
      return plainError("exactSectorEnergies(" + name + "): " +
                        toString(std::move(e)));
    if (!std::isfinite(t.coeff))
      return plainError("exactSectorEnergies(" + name +
                        "): non-finite coefficient of " + t.word);
    PauliMask m = toMask(t.word);
    unsigned y = popcount(m.x & m.z);
    real &= (y % 2 == 0);
    auto [it, fresh] = groupOf.try_emplace(m.x, unsigned(groups.size()));
    if (fresh)
      groups.push_back({m.x, {}});
    groups[it->second].terms.push_back({m, t.coeff, y});
  }
  auto hf = hartreeFockEnergy(h);
  if (!hf)
    return hf.takeError();

  Sector s;
  s.na = na;
  s.nb = nb;
  for (unsigned q = 0; q < nq; ++q)
    (q % 2 ? s.oddMask : s.evenMask) |= uint64_t(1) << q;
  s.basis.reserve(size_t(dimD));
  for (uint64_t a : subsets(norb, na))
    for (uint64_t b : subsets(norb, nb)) {
      uint64_t st = spread(a, 0) | spread(b, 1);
      s.index[st] = unsigned(s.basis.size());
      s.basis.push_back(st);
    }
  // Per-state leak checks cost a pass over every group and state; a
  // Hamiltonian that commutes with N_alpha and N_beta cannot leak.
  bool checkLeaks = !commutesWithSpinNumbers(groups, nq);

  ExactResult r{0, *hf, s.basis.size(), na, nb};
  Error e = real ? solveSector<double>(groups, s, checkLeaks, opts, name, r)
                 : solveSector<std::complex<double>>(groups, s, checkLeaks,
                                                     opts, name, r);
  if (e)
    return std::move(e);
  return r;
}

} // namespace q2::hamiltonian
