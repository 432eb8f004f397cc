//===- ExactSolverTest.cpp - Sector energies vs. REFERENCE.txt and dense --===//
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
                           std::string s = info.param;
                           for (char &c : s)
                             if (!isalnum((unsigned char)c))
                               c = '_';
                           return s;
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
