//===- TrotterErrorTest.cpp - Trotter bounds against dense computations ---===//
//
// Everything the library computes with Pauli masks is recomputed here with
// dense matrices built by Kronecker products (TestUtil.h, qubit 0 = most
// significant bit): the commutator constants by Pauli decomposition of the
// dense nested commutators, the exact Trotter error ||e^{-iHt} - S(t)|| by
// matrix exponentials (eigen-decomposition) and an SVD, and the eigenphase
// shifts of the per-wire QPE unitaries by a non-Hermitian eigensolver.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

#include "q2/QPE/TrotterError.h"

#include <Eigen/SVD>

#include <cmath>
#include <cstdio>
#include <random>

using namespace q2::hamiltonian;
using namespace q2::hamiltonian::test;

namespace {

using C = std::complex<double>;

/// A Pauli word as one non-zero per row: W(i, col[i]) = phase[i]; taken
/// from the dense Kronecker matrix, not from the library's masks.
struct SparsePauli {
  std::vector<size_t> col;
  std::vector<C> phase;
};
SparsePauli sparsePauli(const std::string &word) {
  CMat m = pauliMatrix(word);
  SparsePauli s;
  for (int i = 0; i < m.rows(); ++i)
    for (int j = 0; j < m.cols(); ++j)
      if (std::abs(m(i, j)) > 0.5) {
        s.col.push_back(size_t(j));
        s.phase.push_back(m(i, j));
      }
  return s;
}

std::vector<std::string> allWords(unsigned n) {
  std::vector<std::string> out{""};
  for (unsigned q = 0; q < n; ++q) {
    std::vector<std::string> next;
    for (const std::string &w : out)
      for (char c : {'I', 'X', 'Y', 'Z'})
        next.push_back(w + c);
    out = std::move(next);
  }
  return out;
}

/// sum_W |Tr(W^dagger M)| / 2^n: the 1-norm of M's Pauli coefficients.
struct PauliBasis {
  explicit PauliBasis(unsigned n) {
    for (const std::string &w : allWords(n))
      words.push_back(sparsePauli(w));
  }
  double absSum(const CMat &m) const {
    double s = 0;
    for (const SparsePauli &w : words) {
      C tr = 0;
      for (size_t i = 0; i < w.col.size(); ++i)
        tr += std::conj(w.phase[i]) * m(Eigen::Index(i), Eigen::Index(w.col[i]));
      s += std::abs(tr) / double(w.col.size());
    }
    return s;
  }
  std::vector<SparsePauli> words;
};

bool isIdentity(const std::string &w) {
  return w.find_first_not_of('I') == std::string::npos;
}

struct DenseAlphas {
  double alpha1 = 0, nested = 0, selfNested = 0;
};

/// The three commutator sums from dense matrices (non-identity terms, in
/// the stored order).
DenseAlphas denseAlphas(const QubitHamiltonian &h) {
  std::vector<CMat> hs;
  for (const PauliTerm &t : h.terms)
    if (!isIdentity(t.word))
      hs.push_back(t.coeff * pauliMatrix(t.word));
  PauliBasis basis(h.numQubits);
  size_t dim = size_t(1) << h.numQubits;
  DenseAlphas a;
  CMat suffix = CMat::Zero(dim, dim);
  for (size_t g = hs.size(); g-- > 0;) {
    const CMat &h1 = hs[g];
    CMat c = suffix * h1 - h1 * suffix;            // [B, H_g]
    a.alpha1 += basis.absSum(c);
    a.nested += basis.absSum(suffix * c - c * suffix); // [B, [B, H_g]]
    CMat inner = h1 * suffix - suffix * h1;          // [H_g, B]
    a.selfNested += basis.absSum(h1 * inner - inner * h1);
    suffix += h1;
  }
  return a;
}

/// exp(-i H t) by eigen-decomposition of the Hermitian matrix.
CMat expIHt(const CMat &h, double t) {
  Eigen::SelfAdjointEigenSolver<CMat> es(h);
  Eigen::VectorXcd ph(es.eigenvalues().size());
  for (Eigen::Index i = 0; i < ph.size(); ++i)
    ph(i) = std::exp(C(0, -es.eigenvalues()(i) * t));
  return es.eigenvectors() * ph.asDiagonal() * es.eigenvectors().adjoint();
}

/// M <- exp(-i c dt P) M = (cos(c dt) - i sin(c dt) P) M, P sparse.
void applyRotation(const SparsePauli &p, double angle, CMat &m) {
  CMat pm(m.rows(), m.cols());
  for (size_t i = 0; i < p.col.size(); ++i)
    pm.row(Eigen::Index(i)) = p.phase[i] * m.row(Eigen::Index(p.col[i]));
  m = std::cos(angle) * m - C(0, std::sin(angle)) * pm;
}

/// The product formula exactly as the QPE program applies it (term 0 first;
/// order 2: halves of 0..n-2, the full last term, halves back).
CMat productFormula(const QubitHamiltonian &h, unsigned order, double dt) {
  std::vector<SparsePauli> ps;
  for (const PauliTerm &t : h.terms)
    ps.push_back(sparsePauli(t.word));
  size_t n = ps.size(), dim = size_t(1) << h.numQubits;
  CMat m = CMat::Identity(dim, dim);
  if (order == 1) {
    for (size_t j = 0; j < n; ++j)
      applyRotation(ps[j], h.terms[j].coeff * dt, m);
    return m;
  }
  for (size_t j = 0; j + 1 < n; ++j)
    applyRotation(ps[j], h.terms[j].coeff * dt / 2, m);
  applyRotation(ps[n - 1], h.terms[n - 1].coeff * dt, m);
  for (size_t j = n - 1; j-- > 0;)
    applyRotation(ps[j], h.terms[j].coeff * dt / 2, m);
  return m;
}

CMat matrixPower(CMat m, uint64_t n) {
  CMat r = CMat::Identity(m.rows(), m.cols());
  for (; n; n >>= 1, m = m * m)
    if (n & 1)
      r = r * m;
  return r;
}

double spectralNorm(const CMat &m) {
  Eigen::BDCSVD<CMat> svd(m);
  return svd.singularValues()(0);
}

QubitHamiltonian randomPauliSum(unsigned nq, unsigned nterms, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> letter(0, 3);
  std::uniform_real_distribution<double> coeff(-1.0, 1.0);
  QubitHamiltonian h;
  h.name = "random" + std::to_string(seed);
  h.numQubits = nq;
  h.terms.push_back({std::string(nq, 'I'), coeff(rng)});
  while (h.terms.size() < nterms + 1) {
    std::string w;
    for (unsigned q = 0; q < nq; ++q)
      w.push_back("IXYZ"[letter(rng)]);
    if (!isIdentity(w))
      h.terms.push_back({w, coeff(rng)});
  }
  canonicalizeTerms(h.terms);
  return h;
}

/// Transverse-field Ising chain: every XX anticommutes with its Z's.
QubitHamiltonian isingChain() {
  QubitHamiltonian h;
  h.name = "ising";
  h.numQubits = 4;
  h.terms = {{"XXII", 1.0}, {"IXXI", 0.8}, {"IIXX", 1.2}, {"ZIII", 0.7},
             {"IZII", -0.5}, {"IIZI", 0.9}, {"IIIZ", 0.3}, {"YIIY", 0.4}};
  return h; // deliberately not canonicalised: the bound follows the order
}

std::vector<QubitHamiltonian> smallSystems() {
  std::vector<QubitHamiltonian> out;
  out.push_back(expectOk(loadHamiltonian(dataFile("h2_0.7414.FCIDUMP"))));
  out.push_back(expectOk(loadHamiltonian(dataFile("lih_1.595_2e3o.FCIDUMP"))));
  out.push_back(randomPauliSum(3, 12, 1));
  out.push_back(randomPauliSum(4, 20, 2));
  out.push_back(isingChain());
  return out;
}

TEST(TrotterBound, CommutatorSumsMatchDensePauliDecomposition) {
  for (const QubitHamiltonian &h : smallSystems()) {
    TrotterCommutators c = expectOk(trotterCommutators(h, 2));
    DenseAlphas d = denseAlphas(h);
    EXPECT_GT(d.alpha1, 0.0) << h.name;
    EXPECT_NEAR(c.alpha1, d.alpha1, 1e-10 * (1 + d.alpha1)) << h.name;
    EXPECT_NEAR(c.nested, d.nested, 1e-10 * (1 + d.nested)) << h.name;
    EXPECT_NEAR(c.selfNested, d.selfNested, 1e-10 * (1 + d.selfNested))
        << h.name;
    // Order 1 computes the same alpha1 and nothing else.
    TrotterCommutators c1 = expectOk(trotterCommutators(h, 1));
    EXPECT_DOUBLE_EQ(c1.alpha1, c.alpha1);
    EXPECT_FALSE(c1.hasOrder2);
  }
}

TEST(TrotterBound, ManyTermsAreBoundedTermwiseAndStillDominate) {
  // Above kMaxCommutatorTerms the sums are bounded by the triangle
  // inequality: linear time, never below the exact (dense) sums.
  // 6 qubits: after merging repeated words still above the limit.
  QubitHamiltonian h = randomPauliSum(6, kMaxCommutatorTerms + 300, 7);
  ASSERT_GT(h.terms.size(), size_t(kMaxCommutatorTerms) + 1);
  TrotterCommutators c = expectOk(trotterCommutators(h, 2));
  EXPECT_TRUE(c.triangle);
  DenseAlphas d = denseAlphas(h);
  EXPECT_GE(c.alpha1, d.alpha1);
  EXPECT_GE(c.nested, d.nested);
  EXPECT_GE(c.selfNested, d.selfNested);
  // The closed form, from the back: S_g = sum_{g'>g} |c_g'|.
  double suffix = 0, a1 = 0;
  for (size_t i = h.terms.size(); i-- > 0;) {
    if (isIdentity(h.terms[i].word))
      continue;
    a1 += 2 * std::fabs(h.terms[i].coeff) * suffix;
    suffix += std::fabs(h.terms[i].coeff);
  }
  EXPECT_NEAR(c.alpha1, a1, 1e-9 * a1);
  // At or below the limit the sums are exact.
  QubitHamiltonian small = randomPauliSum(4, 20, 2);
  EXPECT_FALSE(expectOk(trotterCommutators(small, 2)).triangle);
}

TEST(TrotterBound, WideRegistersGiveTheSameConstants) {
  // Above 31 qubits the words take two 64-bit keys. Padding a Hamiltonian
  // with idle qubits (at the front and the back, so that high bits are used)
  // must not change the sums, which the 4-qubit case checks densely above.
  QubitHamiltonian h = randomPauliSum(4, 20, 2);
  QubitHamiltonian wide = h;
  wide.numQubits = 4 + 40;
  for (PauliTerm &t : wide.terms)
    t.word = std::string(20, 'I') + t.word + std::string(20, 'I');
  TrotterCommutators a = expectOk(trotterCommutators(h, 2));
  TrotterCommutators b = expectOk(trotterCommutators(wide, 2));
  DenseAlphas d = denseAlphas(h);
  EXPECT_NEAR(b.alpha1, d.alpha1, 1e-10 * (1 + d.alpha1));
  EXPECT_NEAR(b.nested, d.nested, 1e-10 * (1 + d.nested));
  EXPECT_NEAR(b.selfNested, d.selfNested, 1e-10 * (1 + d.selfNested));
  EXPECT_EQ(a.numTerms, b.numTerms);
}

TEST(TrotterBound, CollectingWordsIsTighterThanTermByTerm) {
  // In [B, [B, H_g]] two different pairs (m, k) can give the same word: with
  // A = Z0 Y1 first, the pairs (X0, X1) and (Y0 Y1, Z0 Z1) both give
  // +-Z0 Y1 X0 X1. Flipping the sign of Z0 Z1 flips the second contribution
  // only, so for one sign they cancel and the collected sum is strictly
  // below the sum of the pairwise norms (it is never above it).
  bool strictlyBelow = false;
  for (double sign : {1.0, -1.0}) {
    QubitHamiltonian h;
    h.name = "cancel";
    h.numQubits = 2;
    h.terms = {{"ZY", 0.7}, {"XI", 0.5}, {"IX", 0.4}, {"YY", 0.3}, {"ZZ", sign * 0.6}};
    TrotterCommutators c = expectOk(trotterCommutators(h, 2));
    EXPECT_NEAR(c.nested, denseAlphas(h).nested, 1e-12);
    std::vector<CMat> hs;
    for (const PauliTerm &t : h.terms)
      hs.push_back(t.coeff * pauliMatrix(t.word));
    double pairwise = 0;
    for (size_t g = 0; g < hs.size(); ++g)
      for (size_t m = g + 1; m < hs.size(); ++m)
        for (size_t k = g + 1; k < hs.size(); ++k) {
          CMat inner = hs[k] * hs[g] - hs[g] * hs[k];
          pairwise += spectralNorm(hs[m] * inner - inner * hs[m]);
        }
    EXPECT_LE(c.nested, pairwise + 1e-12);
    strictlyBelow |= c.nested < pairwise - 0.1;
  }
  EXPECT_TRUE(strictlyBelow);
}

struct Looseness {
  std::string name;
  unsigned order;
  double t, bound, exact;
};

/// Checks bound >= exact error for several t and step counts; returns the
/// ratios at the given times (1 step).
std::vector<Looseness>
checkBounds(const QubitHamiltonian &h,
            std::vector<double> times = {0.001, 0.01, 0.05, 0.1, 0.3, 1.0, 3.0},
            std::vector<uint64_t> steps = {1, 3, 16}) {
  std::vector<Looseness> out;
  CMat hm = denseMatrix(h);
  for (unsigned order : {1u, 2u}) {
    TrotterCommutators c = expectOk(trotterCommutators(h, order));
    for (double t : times) {
      CMat exact = expIHt(hm, t);
      for (uint64_t n : steps) {
        CMat s = matrixPower(productFormula(h, order, t / double(n)), n);
        double err = spectralNorm(exact - s);
        double bound = trotterErrorBound(c, order, t, n);
        EXPECT_GE(bound * (1 + 1e-9) + 1e-13, err)
            << h.name << " order " << order << " t " << t << " n " << n;
        if (n == 1)
          out.push_back({h.name, order, t, bound, err});
      }
    }
  }
  return out;
}

TEST(TrotterBound, BoundsTheExactErrorOnSmallSystems) {
  for (const QubitHamiltonian &h : smallSystems())
    checkBounds(h);
}

/// Measured looseness bound / exact on the bundled molecules (one step, at
/// t = 0.01 and 0.1 where the error is in its asymptotic regime), checked
/// against the factors documented in docs/trotter-error.md.
TEST(TrotterBound, LoosenessOnBundledMolecules) {
  struct Doc {
    const char *file;
    double maxFactor[2]; // order 1, order 2
  };
  for (Doc d : {Doc{"h2_0.7414.FCIDUMP", {1.1, 1.5}},
                Doc{"lih_1.595_2e3o.FCIDUMP", {10.0, 18.0}},
                Doc{"h3o+_4e4o.FCIDUMP", {27.0, 53.0}}}) {
    QubitHamiltonian h = expectOk(loadHamiltonian(dataFile(d.file)));
    for (const Looseness &l : checkBounds(h, {0.01, 0.1}, {1})) {
      if (l.t != 0.01 && l.t != 0.1)
        continue;
      double factor = l.bound / l.exact;
      std::printf("looseness %-16s order %u t %-5g bound %.4e exact %.4e "
                  "factor %.2f\n",
                  l.name.c_str(), l.order, l.t, l.bound, l.exact, factor);
      EXPECT_GE(factor, 1.0);
      EXPECT_LE(factor, d.maxFactor[l.order - 1]) << l.name << " order " << l.order;
    }
  }
}

/// Largest distance (radians) between the eigenphases of two unitaries,
/// both ways (Hausdorff distance on the circle).
double eigenphaseDistance(const CMat &u, const CMat &v) {
  Eigen::ComplexEigenSolver<CMat> eu(u), ev(v);
  auto oneWay = [](const Eigen::VectorXcd &a, const Eigen::VectorXcd &b) {
    double worst = 0;
    for (Eigen::Index i = 0; i < a.size(); ++i) {
      double best = 10;
      for (Eigen::Index j = 0; j < b.size(); ++j)
        best = std::min(best, std::abs(std::arg(a(i) / b(j))));
      worst = std::max(worst, best);
    }
    return worst;
  };
  return std::max(oneWay(eu.eigenvalues(), ev.eigenvalues()),
                  oneWay(ev.eigenvalues(), eu.eigenvalues()));
}

TEST(TrotterSteps, ChosenStepsMeetTheTargetOnH2) {
  // The QPE unitaries of every wire, built densely with the chosen steps:
  // their eigenphases must be within energyError[k] * t_k of the exact ones
  // (and so within the target), and one step fewer must break the bound
  // (recomputed from the dense commutator sums).
  QubitHamiltonian h = expectOk(loadHamiltonian(dataFile("h2_0.7414.FCIDUMP")));
  QPEParameters p = expectOk(computeQPEParameters(h, std::nullopt));
  ASSERT_EQ(p.nEst, 11u);
  CMat hm = denseMatrix(h) - p.energyShift * CMat::Identity(16, 16);
  QubitHamiltonian shifted = h;
  for (PauliTerm &t : shifted.terms)
    if (isIdentity(t.word))
      t.coeff -= p.energyShift;
  DenseAlphas d = denseAlphas(h);
  for (unsigned order : {1u, 2u})
    for (TrotterPower power : {TrotterPower::Time, TrotterPower::Repeat}) {
      TrotterPlan plan = expectOk(chooseTrotterSteps(h, p, order, power));
      ASSERT_EQ(plan.steps.size(), p.nEst);
      EXPECT_DOUBLE_EQ(plan.targetEnergyError, 0.25 * p.resolution);
      EXPECT_TRUE(plan.withinTarget());
      double alpha = order == 1 ? d.alpha1 : d.nested / 12 + d.selfNested / 24;
      auto denseEnergyError = [&](double t, uint64_t n) {
        double dt = t / double(n);
        double eps = double(n) * (order == 1 ? dt * dt / 2 : dt * dt * dt) * alpha;
        return eps >= 2 ? 1e300 : 2 * std::asin(eps / 2) / t;
      };
      for (unsigned k = 0; k < p.nEst; ++k) {
        double tk = std::ldexp(p.baseTime, int(k));
        uint64_t n = plan.steps[k];
        double t1 = power == TrotterPower::Time ? tk : p.baseTime;
        EXPECT_LE(denseEnergyError(t1, n), plan.targetEnergyError * (1 + 1e-9));
        if (n > 1) {
          EXPECT_GT(denseEnergyError(t1, n - 1), plan.targetEnergyError * (1 - 1e-9))
              << "wire " << k << " is not minimal";
        }
        // The actual unitaries.
        CMat exact = expIHt(hm, tk);
        CMat v = power == TrotterPower::Time
                     ? matrixPower(productFormula(shifted, order, tk / double(n)), n)
                     : matrixPower(productFormula(shifted, order, p.baseTime / double(n)),
                                   n << k);
        EXPECT_LE(spectralNorm(exact - v), plan.operatorError[k] + 1e-9) << k;
        double dphi = eigenphaseDistance(exact, v);
        EXPECT_LE(dphi / tk, plan.energyError[k] + 1e-12) << "wire " << k;
        EXPECT_LE(plan.energyError[k], plan.targetEnergyError * (1 + 1e-12));
      }
      if (power == TrotterPower::Repeat) {
        EXPECT_EQ(plan.steps.front(), plan.steps.back());
      } else if (order == 1) {
        EXPECT_GT(plan.steps.back(), 100 * plan.steps.front());
      }
    }
}

TEST(TrotterSteps, ExplicitStepCountAndDegenerateCases) {
  QubitHamiltonian h = expectOk(loadHamiltonian(dataFile("lih_1.595_2e3o.FCIDUMP")));
  QPEParameters p = expectOk(computeQPEParameters(h, std::nullopt));
  TrotterPlan one = expectOk(trotterPlanForSteps(h, p, 2, TrotterPower::Time, 1));
  // One step on the top wire (t ~ 2^n_est / lambda): the bound says nothing.
  EXPECT_TRUE(one.exceedsResolution());
  EXPECT_DOUBLE_EQ(one.operatorError.back(), 2.0);
  EXPECT_FALSE(one.withinTarget());
  TrotterPlan autoPlan = expectOk(chooseTrotterSteps(h, p, 2, TrotterPower::Time, 0.5));
  TrotterPlan same = expectOk(
      trotterPlanForSteps(h, p, 2, TrotterPower::Time, autoPlan.steps.back()));
  EXPECT_LE(same.maxEnergyError, 0.5 * p.resolution);
  EXPECT_FALSE(same.exceedsResolution());
  // A coarser fraction needs fewer steps (order 2: ~ fraction^(-1/2)).
  TrotterPlan tight = expectOk(chooseTrotterSteps(h, p, 2, TrotterPower::Time, 0.125));
  EXPECT_GT(tight.steps.back(), autoPlan.steps.back());
  // (not exactly 2: on the top wire the allowed eigenphase error, fraction *
  // pi, is where 2 asin(eps/2) is no longer linear in eps).
  double ratio = double(tight.steps.back()) / double(autoPlan.steps.back());
  EXPECT_GT(ratio, 1.8);
  EXPECT_LE(ratio, 2.0);

  // Commuting terms: no Trotter error at all.
  QubitHamiltonian z;
  z.name = "z";
  z.numQubits = 2;
  z.terms = {{"II", -1.0}, {"ZI", 0.5}, {"IZ", 0.3}, {"ZZ", 0.2}};
  QPEParameters pz = expectOk(computeQPEParameters(z, 8u));
  TrotterPlan pl = expectOk(chooseTrotterSteps(z, pz, 1, TrotterPower::Repeat));
  EXPECT_EQ(pl.steps, std::vector<uint64_t>(8, 1));
  EXPECT_EQ(pl.maxEnergyError, 0.0);
  EXPECT_EQ(pl.totalSteps, 255u);

  EXPECT_NE(errorOf(trotterCommutators(h, 3)).find("order must be 1 or 2"),
            std::string::npos);
  EXPECT_NE(errorOf(chooseTrotterSteps(h, p, 2, TrotterPower::Time, 0.0))
                .find("fraction"),
            std::string::npos);
  EXPECT_NE(errorOf(trotterPlanForSteps(h, p, 1, TrotterPower::Time, 0))
                .find("n_trotter"),
            std::string::npos);
  TrotterCommutators c1 = expectOk(trotterCommutators(h, 1));
  EXPECT_NE(errorOf(chooseTrotterSteps(c1, p, 2, TrotterPower::Time))
                .find("order 1 only"),
            std::string::npos);
  // An absurd resolution needs more than 2^40 steps.
  QPEParameters fine = p;
  fine.resolution = 1e-15;
  EXPECT_NE(errorOf(chooseTrotterSteps(h, fine, 1, TrotterPower::Time))
                .find("above the limit"),
            std::string::npos);
}

// A per-wire table (as a program's metadata holds it) gives back the plan it
// was chosen with; a table of the wrong size or with a zero is refused.
TEST(TrotterSteps, PerWireTableEvaluatesLikeTheChosenPlan) {
  QubitHamiltonian h = expectOk(loadHamiltonian(dataFile("h2_0.7414.FCIDUMP")));
  QPEParameters p = expectOk(computeQPEParameters(h, std::nullopt));
  TrotterCommutators c = expectOk(trotterCommutators(h, 2));
  for (TrotterPower power : {TrotterPower::Time, TrotterPower::Repeat}) {
    TrotterPlan chosen = expectOk(chooseTrotterSteps(c, p, 2, power));
    TrotterPlan again =
        expectOk(trotterPlanForSteps(c, p, 2, power, chosen.steps));
    EXPECT_EQ(again.steps, chosen.steps);
    EXPECT_DOUBLE_EQ(again.maxEnergyError, chosen.maxEnergyError);
    EXPECT_LE(again.maxEnergyError, 0.25 * p.resolution);
  }
  auto shortTable = trotterPlanForSteps(c, p, 2, TrotterPower::Time,
                                        std::vector<uint64_t>(p.nEst - 1, 5));
  ASSERT_FALSE(bool(shortTable));
  EXPECT_NE(llvm::toString(shortTable.takeError()).find("step counts for"),
            std::string::npos);
  std::vector<uint64_t> zero(p.nEst, 5);
  zero[2] = 0;
  auto withZero = trotterPlanForSteps(c, p, 2, TrotterPower::Time, zero);
  ASSERT_FALSE(bool(withZero));
  llvm::consumeError(withZero.takeError());
}

TEST(TrotterSteps, EigenphaseBound) {
  EXPECT_EQ(eigenphaseErrorBound(0.0), 0.0);
  EXPECT_NEAR(eigenphaseErrorBound(1e-6), 1e-6, 1e-15);
  EXPECT_NEAR(eigenphaseErrorBound(2.0), 3.14159265358979, 1e-12);
  EXPECT_NEAR(eigenphaseErrorBound(5.0), 3.14159265358979, 1e-12);
  // 2 asin(e/2) <= (pi/2) e on [0, 2].
  for (double e = 0.01; e <= 2.0; e += 0.01)
    EXPECT_LE(eigenphaseErrorBound(e), 1.5707963267948966 * e + 1e-15);
  // A unitary pair at chord distance exactly eps: phases differ by
  // 2 asin(eps/2).
  double eps = 0.3, phi = 2 * std::asin(eps / 2);
  EXPECT_NEAR(std::abs(std::exp(C(0, phi)) - 1.0), eps, 1e-15);
}

} // namespace
