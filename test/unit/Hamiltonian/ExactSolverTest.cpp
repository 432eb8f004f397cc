//===- ExactSolverTest.cpp - Sector energies vs. REFERENCE.txt and dense --===//
#include "UnitTestUtil.h"
#include "TestUtil.h"

using namespace q2::hamiltonian;
using namespace q2::hamiltonian::test;

namespace {

class ReferenceEnergies : public ::testing::TestWithParam<std::string> {};

TEST_P(ReferenceEnergies, MatchPsi4) {
  auto refs = readReference();
  ASSERT_TRUE(refs.count(GetParam())) << "no REFERENCE.txt entry";
  Reference ref = refs[GetParam()];
  ASSERT_LT(ref.casci, 0.0);
  QubitHamiltonian h = expectOk(loadHamiltonian(dataFile(GetParam() + ".FCIDUMP")));
  ExactResult r = expectOk(exactSectorEnergies(h));
  EXPECT_NEAR(r.groundEnergy, ref.casci, 1e-8);
  EXPECT_NEAR(r.hfEnergy, ref.scf, 1e-8);
  EXPECT_EQ(r.nAlpha + r.nBeta, h.numElectrons);
}

TEST_P(ReferenceEnergies, SectorSolverMatchesDenseProjection) {
  // Independent path: the full 2^n matrix from Kronecker products, projected
  // onto the sector by counting bits; HF energy as a diagonal element.
  QubitHamiltonian h = expectOk(loadHamiltonian(dataFile(GetParam() + ".FCIDUMP")));
  ExactResult r = expectOk(exactSectorEnergies(h));
  CMat m = denseMatrix(h);
  unsigned n = h.numQubits;
  EXPECT_NEAR(r.groundEnergy, sectorGround(m, n, r.nAlpha, r.nBeta), 1e-10);
  size_t hf = 0;
  for (unsigned q = 0; q < n; ++q)
    if (h.hfOccupation[q])
      hf |= size_t(1) << (n - 1 - q);
  EXPECT_NEAR(r.hfEnergy, m(hf, hf).real(), 1e-10);
  // Sector size C(norb, na) * C(norb, nb).
  auto binom = [](unsigned a, unsigned b) {
    double r = 1;
    for (unsigned i = 1; i <= b; ++i)
      r = r * (a - b + i) / i;
    return size_t(r + 0.5);
  };
  EXPECT_EQ(r.sectorDim, binom(n / 2, r.nAlpha) * binom(n / 2, r.nBeta));
}

INSTANTIATE_TEST_SUITE_P(HamExamples, ReferenceEnergies,
                         ::testing::Values("h2_0.7414", "lih_1.595_2e3o",
                                           "h3o+_4e4o"),
                         [](const auto &info) {
                           return q2::test::testName(info.param);
                         });

TEST(ExactSolver, PublishedH2GroundEnergy) {
  QubitHamiltonian h =
      expectOk(parseQubitHamiltonianJSON(dataFile("h2_0.7414_jw_published.json")));
  EXPECT_EQ(h.numElectrons, 2u);
  EXPECT_EQ(h.ms2, 0);
  ExactResult r = expectOk(exactSectorEnergies(h));
  EXPECT_NEAR(r.groundEnergy, -1.1372838344885023, 1e-9);
}

TEST(ExactSolver, OtherSectorsOfH3O) {
  // The triplet and the 2-electron sectors against the dense projection.
  QubitHamiltonian h = expectOk(loadHamiltonian(dataFile("h3o+_4e4o.FCIDUMP")));
  CMat m = denseMatrix(h);
  for (auto [ne, ms2] : {std::pair{4u, 2}, {2u, 0}, {3u, 1}, {6u, 0}}) {
    QubitHamiltonian s = h;
    s.hfOccupation.clear();
    s.numElectrons = ne;
    s.ms2 = ms2;
    ExactResult r = expectOk(exactSectorEnergies(s));
    unsigned na = (ne + ms2) / 2, nb = ne - na;
    EXPECT_EQ(r.nAlpha, na);
    EXPECT_EQ(r.nBeta, nb);
    EXPECT_NEAR(r.groundEnergy, sectorGround(m, 8, na, nb), 1e-10) << ne << " " << ms2;
  }
}

TEST(ExactSolver, ComplexHamiltonian) {
  // Odd numbers of Y take the complex path: an imaginary hopping
  // i t (a+_0 a_2 - a+_2 a_0) = t/2 (X0 Z1 Y2 - Y0 Z1 X2) plus diagonal terms.
  QubitHamiltonian h;
  h.name = "cplx";
  h.numQubits = 4;
  h.numElectrons = 1;
  h.ms2 = 1;
  h.terms = {{"IIII", 0.1}, {"ZIII", 0.3}, {"IIZI", -0.2},
             {"XZYI", 0.35}, {"YZXI", -0.35}, {"ZZII", 0.05}};
  canonicalizeTerms(h.terms);
  ExactResult r = expectOk(exactSectorEnergies(h));
  EXPECT_EQ(r.sectorDim, 2u);
  EXPECT_NEAR(r.groundEnergy, sectorGround(denseMatrix(h), 4, 1, 0), 1e-12);
}

TEST(ExactSolver, RejectsNonConservingHamiltonian) {
  QubitHamiltonian h;
  h.name = "ising";
  h.numQubits = 4;
  h.numElectrons = 2;
  h.terms = {{"XIII", 1.0}, {"ZZII", 0.5}};
  std::string msg = errorOf(exactSectorEnergies(h));
  EXPECT_NE(msg.find("does not conserve"), std::string::npos) << msg;
}

TEST(ExactSolver, RejectsUnknownSectorOddQubitsAndHugeSectors) {
  QubitHamiltonian h;
  h.name = "x";
  h.numQubits = 4;
  h.terms = {{"ZIII", 1.0}};
  EXPECT_NE(errorOf(exactSectorEnergies(h)).find("electrons is unknown"),
            std::string::npos);
  h.numQubits = 3;
  h.numElectrons = 1;
  h.terms = {{"ZII", 1.0}};
  EXPECT_NE(errorOf(exactSectorEnergies(h)).find("odd"), std::string::npos);
  QubitHamiltonian big = expectOk(loadHamiltonian(dataFile("h3o+_4e4o.FCIDUMP")));
  std::string msg = errorOf(exactSectorEnergies(big, /*maxSectorDim=*/10));
  EXPECT_NE(msg.find("dimension 36"), std::string::npos) << msg;
}

} // namespace

namespace {

/// Full CI straight from the integrals (no Pauli strings): determinants as
/// bit strings over interleaved spin orbitals j = 2p + s, ladder operators
/// with the Jordan-Wigner sign (-1)^(occupied orbitals below j), and
/// H = core + sum h_pq a+_ps a_qs + 1/2 sum (pq|rs) a+_ps a+_rt a_st a_qs.
/// Returns the lowest eigenvalue of the (na, nb) block.
double fciFromIntegrals(const FCIDump &d, unsigned na, unsigned nb) {
  const unsigned n = d.norb;
  std::vector<uint64_t> dets;
  for (uint64_t b = 0; b < (uint64_t(1) << (2 * n)); ++b) {
    unsigned a = 0, c = 0;
    for (unsigned p = 0; p < n; ++p) {
      a += (b >> (2 * p)) & 1;
      c += (b >> (2 * p + 1)) & 1;
    }
    if (a == na && c == nb)
      dets.push_back(b);
  }
  std::map<uint64_t, size_t> index;
  for (size_t i = 0; i < dets.size(); ++i)
    index[dets[i]] = i;
  // Applies a (create = false) or a+ (create = true) on orbital j.
  auto apply = [](uint64_t &b, double &sign, unsigned j, bool create) {
    bool occ = (b >> j) & 1;
    if (occ == create)
      return false;
    unsigned below = 0;
    for (unsigned i = 0; i < j; ++i)
      below += (b >> i) & 1;
    if (below % 2)
      sign = -sign;
    b ^= uint64_t(1) << j;
    return true;
  };
  Eigen::MatrixXd h = Eigen::MatrixXd::Zero(dets.size(), dets.size());
  for (size_t col = 0; col < dets.size(); ++col) {
    h(col, col) += d.coreEnergy;
    for (unsigned p = 0; p < n; ++p)
      for (unsigned q = 0; q < n; ++q)
        for (unsigned s = 0; s < 2; ++s) {
          uint64_t b = dets[col];
          double sign = d.oneBody(p, q);
          if (apply(b, sign, 2 * q + s, false) && apply(b, sign, 2 * p + s, true))
            h(index.at(b), col) += sign;
        }
    for (unsigned p = 0; p < n; ++p)
      for (unsigned q = 0; q < n; ++q)
        for (unsigned r = 0; r < n; ++r)
          for (unsigned s = 0; s < n; ++s)
            for (unsigned si = 0; si < 2; ++si)
              for (unsigned ta = 0; ta < 2; ++ta) {
                uint64_t b = dets[col];
                double sign = 0.5 * d.twoBody(p, q, r, s);
                if (apply(b, sign, 2 * q + si, false) &&
                    apply(b, sign, 2 * s + ta, false) &&
                    apply(b, sign, 2 * r + ta, true) &&
                    apply(b, sign, 2 * p + si, true))
                  h(index.at(b), col) += sign;
              }
  }
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(h, Eigen::EigenvaluesOnly);
  return es.eigenvalues()(0);
}

ExactSolverOptions forceLanczos() {
  ExactSolverOptions o;
  o.denseLimit = 0;
  return o;
}
ExactSolverOptions forceDense() {
  ExactSolverOptions o;
  o.denseLimit = o.maxSectorDim;
  return o;
}

TEST(ExactSolver, TwelveQubitMoleculesMatchPsi4BothWays) {
  auto refs = readReference();
  for (const char *name : {"lih_4e6o", "h6_chain_6e6o"}) {
    ASSERT_TRUE(refs.count(name)) << name;
    QubitHamiltonian h =
        expectOk(loadHamiltonian(dataFile(std::string(name) + ".FCIDUMP")));
    ExactResult lanczos = expectOk(exactSectorEnergies(h, forceLanczos()));
    ExactResult dense = expectOk(exactSectorEnergies(h, forceDense()));
    EXPECT_TRUE(lanczos.iterative);
    EXPECT_FALSE(dense.iterative);
    EXPECT_NEAR(lanczos.groundEnergy, dense.groundEnergy, 1e-9) << name;
    EXPECT_NEAR(lanczos.groundEnergy, refs[name].casci, 1e-8) << name;
    EXPECT_NEAR(lanczos.hfEnergy, refs[name].scf, 1e-8) << name;
    EXPECT_NEAR(expectOk(hartreeFockEnergy(h)), refs[name].scf, 1e-8) << name;
    EXPECT_LT(lanczos.residual, 1e-8);
  }
}

TEST(ExactSolver, LanczosMatchesFullCIFromIntegrals) {
  // Random dense integrals (every (pq|rs) non-zero): closed shell, an
  // open-shell sector and a high-spin one. The independent reference is a
  // determinant CI built from the integrals, not from the Pauli terms.
  struct Case {
    unsigned norb, nelec;
    int ms2;
    uint64_t seed;
  };
  for (Case c : {Case{6, 6, 0, 11}, Case{7, 4, 0, 12}, Case{6, 5, 1, 13},
                 Case{6, 4, 2, 14}}) {
    FCIDump d = randomFCIDump(c.norb, c.nelec, c.seed);
    d.ms2 = c.ms2;
    QubitHamiltonian h = expectOk(jordanWigner(d));
    unsigned na = (c.nelec + c.ms2) / 2, nb = c.nelec - na;
    double ref = fciFromIntegrals(d, na, nb);
    ExactResult l = expectOk(exactSectorEnergies(h, forceLanczos()));
    ExactResult dn = expectOk(exactSectorEnergies(h, forceDense()));
    EXPECT_NEAR(l.groundEnergy, ref, 1e-8) << c.norb << "o " << c.nelec << "e";
    EXPECT_NEAR(dn.groundEnergy, ref, 1e-8) << c.norb << "o " << c.nelec << "e";
    EXPECT_EQ(l.nAlpha, na);
    EXPECT_EQ(l.nBeta, nb);
  }
}

TEST(ExactSolver, LanczosFindsATripletBelowTheSinglets) {
  // Two electrons in two degenerate orbitals with a large exchange integral
  // (Hund's rule): the Ms = 0 sector's ground state is the triplet component,
  // which a Krylov space started from the (singlet) HF determinant alone
  // never reaches.
  const char *text = "&FCI NORB=2,NELEC=2,MS2=0 &END\n"
                     " 0.6 1 1 1 1\n 0.6 2 2 2 2\n 0.5 1 1 2 2\n 0.3 1 2 1 2\n"
                     "-1.0 1 1 0 0\n-1.0 2 2 0 0\n 0.0 0 0 0 0\n";
  QubitHamiltonian h = expectOk(jordanWigner(expectOk(parseFCIDumpBuffer(text, "t"))));
  ExactResult l = expectOk(exactSectorEnergies(h, forceLanczos()));
  EXPECT_NEAR(l.groundEnergy, sectorGround(denseMatrix(h), 4, 1, 1), 1e-10);
  // Triplet: E = 2h + J - K = -2 + 0.5 - 0.3.
  EXPECT_NEAR(l.groundEnergy, -1.8, 1e-10);
}

TEST(ExactSolver, LanczosHandlesComplexAndNonConservingInput) {
  QubitHamiltonian h;
  h.name = "cplx";
  h.numQubits = 4;
  h.numElectrons = 1;
  h.ms2 = 1;
  h.terms = {{"IIII", 0.1}, {"ZIII", 0.3}, {"IIZI", -0.2},
             {"XZYI", 0.35}, {"YZXI", -0.35}, {"ZZII", 0.05}};
  canonicalizeTerms(h.terms);
  ExactResult r = expectOk(exactSectorEnergies(h, forceLanczos()));
  EXPECT_NEAR(r.groundEnergy, sectorGround(denseMatrix(h), 4, 1, 0), 1e-12);
  QubitHamiltonian bad;
  bad.name = "ising";
  bad.numQubits = 4;
  bad.numElectrons = 2;
  bad.terms = {{"XIII", 1.0}, {"ZZII", 0.5}};
  EXPECT_NE(errorOf(exactSectorEnergies(bad, forceLanczos())).find("does not conserve"),
            std::string::npos);
}

TEST(ExactSolver, SpinFlipConservesNButNotSz) {
  // a+_{0 beta} a_{0 alpha} + h.c. = (X0 X1 + Y0 Y1) / 2 commutes with the
  // total electron number but not with N_alpha and N_beta: the shortcut that
  // skips the per-state leak check must not apply, on either solver path.
  QubitHamiltonian h;
  h.name = "spinflip";
  h.numQubits = 4;
  h.numElectrons = 1;
  h.ms2 = 1;
  h.terms = {{"XXII", 0.5}, {"YYII", 0.5}, {"ZIII", 0.2}, {"IIZI", -0.1}};
  for (const ExactSolverOptions &o : {forceDense(), forceLanczos()}) {
    std::string msg = errorOf(exactSectorEnergies(h, o));
    EXPECT_NE(msg.find("does not conserve"), std::string::npos) << msg;
  }
  // Without the spin flip the same sector solves, and matches the dense
  // projection.
  h.terms = {{"XZXI", 0.5}, {"YZYI", 0.5}, {"ZIII", 0.2}, {"IIZI", -0.1}};
  ExactResult r = expectOk(exactSectorEnergies(h, forceLanczos()));
  EXPECT_NEAR(r.groundEnergy, sectorGround(denseMatrix(h), 4, 1, 0), 1e-12);
}

TEST(FCIDump, WriterRoundTripAndRandomIntegralsAreValid) {
  FCIDump d = randomFCIDump(5, 4, 7);
  std::string text = formatFCIDump(d);
  FCIDump back = expectOk(parseFCIDumpBuffer(text, "random.FCIDUMP", "random"));
  EXPECT_EQ(back.norb, 5u);
  EXPECT_EQ(back.nelec, 4u);
  EXPECT_EQ(back.h1, d.h1);
  EXPECT_EQ(back.eri, d.eri);
  EXPECT_EQ(back.coreEnergy, d.coreEnergy);
  // Dense: every integral non-zero; the ERI matrix (pq),(rs) is positive
  // semidefinite.
  for (double v : d.eri)
    EXPECT_NE(v, 0.0);
  Eigen::Map<Eigen::MatrixXd> eri(d.eri.data(), 25, 25);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(eri);
  EXPECT_GT(es.eigenvalues().minCoeff(), -1e-12);
  // The bundled files survive a round trip through the writer too.
  FCIDump lih = expectOk(parseFCIDump(dataFile("lih_4e6o.FCIDUMP")));
  FCIDump lih2 = expectOk(parseFCIDumpBuffer(formatFCIDump(lih), "lih"));
  EXPECT_EQ(lih2.eri, lih.eri);
  EXPECT_EQ(lih2.h1, lih.h1);
}

} // namespace
