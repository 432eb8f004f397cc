//===- QPEParametersTest.cpp - Window, time step and decoding -------------===//
#include "TestUtil.h"

#include <cmath>

using namespace q2::hamiltonian;
using namespace q2::hamiltonian::test;

namespace {

const double kPi = 3.14159265358979323846;

QubitHamiltonian h2() {
  return expectOk(loadHamiltonian(dataFile("h2_0.7414.FCIDUMP")));
}

TEST(QPEParameters, DefaultWindowAndResolution) {
  QubitHamiltonian h = h2();
  double c0 = h.identityCoeff(), lambda = h.oneNorm();
  QPEParameters p = expectOk(computeQPEParameters(h, std::nullopt));
  double w = 2 * lambda;
  EXPECT_DOUBLE_EQ(p.windowLo, c0 - lambda);
  EXPECT_DOUBLE_EQ(p.windowHi, c0 + lambda);
  EXPECT_DOUBLE_EQ(p.energyShift, c0 + lambda);
  EXPECT_NEAR(p.baseTime, 2 * kPi / w, 1e-15);
  EXPECT_EQ(p.nEst, unsigned(std::ceil(std::log2(w / 3e-3))));
  EXPECT_LE(p.resolution, 3e-3);
  EXPECT_GT(p.resolution, 1.5e-3);
  EXPECT_DOUBLE_EQ(p.resolution, w / std::pow(2.0, p.nEst));
  // The contract version agrees on valid input.
  QPEParameters q = chooseQPEParameters(h, std::nullopt);
  EXPECT_EQ(q.nEst, p.nEst);
  EXPECT_DOUBLE_EQ(q.baseTime, p.baseTime);
}

TEST(QPEParameters, WindowContainsSpectrum) {
  QubitHamiltonian h = h2();
  QPEParameters p = chooseQPEParameters(h, 4);
  Eigen::SelfAdjointEigenSolver<CMat> es(denseMatrix(h));
  EXPECT_GE(es.eigenvalues().minCoeff(), p.windowLo);
  EXPECT_LE(es.eigenvalues().maxCoeff(), p.windowHi);
}

TEST(QPEParameters, PhaseConventionOfTheUnitary) {
  // For E on the grid, exp(-i (E - shift) t) must be exp(2 pi i m / 2^n):
  // the eigenphase the QPE register reads as index m.
  QubitHamiltonian h = h2();
  QPEParameters p = chooseQPEParameters(h, 6);
  for (uint64_t m : {0ull, 1ull, 17ull, 63ull}) {
    double e = decodeEnergy(m, p);
    std::complex<double> u = std::exp(std::complex<double>(0, -(e - p.energyShift) * p.baseTime));
    std::complex<double> expect = std::exp(std::complex<double>(0, 2 * kPi * m / 64.0));
    EXPECT_LT(std::abs(u - expect), 1e-12) << m;
    EXPECT_NEAR(energyToPhase(e, p), m / 64.0, 1e-12);
  }
  EXPECT_DOUBLE_EQ(decodeEnergy(0, p), p.windowHi);
  EXPECT_NEAR(decodeEnergy(63, p), p.windowLo + p.resolution, 1e-12);
  EXPECT_NEAR(p.resolution, (p.windowHi - p.windowLo) / 64, 1e-15);
}

TEST(QPEParameters, UserWindowAndNEst) {
  QubitHamiltonian h = h2();
  QPEParameters p = expectOk(computeQPEParameters(h, 5, 3e-3, std::pair{-2.0, 0.0}));
  EXPECT_NEAR(p.baseTime, kPi, 1e-15);
  EXPECT_DOUBLE_EQ(p.energyShift, 0.0);
  EXPECT_EQ(p.nEst, 5u);
  EXPECT_DOUBLE_EQ(p.resolution, 2.0 / 32);
  // The exact ground energy decodes to within one resolution step.
  double e0 = -1.1372701747;
  double phi = energyToPhase(e0, p);
  uint64_t m = uint64_t(std::llround(phi * 32)) % 32;
  EXPECT_NEAR(decodeEnergy(m, p), e0, p.resolution / 2 + 1e-12);
  // Auto n_est for a 2 Ha window at 1 mHa: ceil(log2(2000)) = 11.
  EXPECT_EQ(expectOk(computeQPEParameters(h, std::nullopt, 1e-3, std::pair{-2.0, 0.0})).nEst, 11u);
}

TEST(QPEParameters, RejectsBadRequests) {
  QubitHamiltonian h = h2();
  EXPECT_NE(errorOf(computeQPEParameters(h, 0u)).find("n_est = 0"), std::string::npos);
  EXPECT_NE(errorOf(computeQPEParameters(h, 40u)).find("supported are 1..32"), std::string::npos);
  EXPECT_NE(errorOf(computeQPEParameters(h, std::nullopt, -1.0)).find("resolution"), std::string::npos);
  EXPECT_NE(errorOf(computeQPEParameters(h, std::nullopt, NAN)).find("resolution"), std::string::npos);
  EXPECT_NE(errorOf(computeQPEParameters(h, 4u, 3e-3, std::pair{1.0, 0.0})).find("window"), std::string::npos);
  EXPECT_NE(errorOf(computeQPEParameters(h, 4u, 3e-3, std::pair{0.0, INFINITY})).find("window"), std::string::npos);
  EXPECT_NE(errorOf(computeQPEParameters(h, std::nullopt, 1e-12)).find("the resolution needs"), std::string::npos);
}

TEST(QPEParameters, RejectsAnOverflowingOneNorm) {
  // Each coefficient is finite, their 1-norm is not (built by hand: the
  // readers refuse |c| > 1e6 already).
  QubitHamiltonian h;
  h.name = "huge";
  h.numQubits = 2;
  h.terms = {{"ZI", 1.5e308}, {"IZ", 1.5e308}};
  std::string msg = errorOf(computeQPEParameters(h, std::nullopt));
  EXPECT_NE(msg.find("1-norm of huge is not finite"), std::string::npos) << msg;
}

TEST(QPEParameters, DegenerateInputsStayFinite) {
  QubitHamiltonian id;
  id.numQubits = 2;
  id.terms = {{"II", -1.5}};
  QPEParameters p = chooseQPEParameters(id, std::nullopt);
  EXPECT_TRUE(std::isfinite(p.baseTime));
  EXPECT_DOUBLE_EQ(p.windowLo, -2.5);
  EXPECT_DOUBLE_EQ(p.windowHi, -0.5);
  QPEParameters q = chooseQPEParameters(h2(), 0u, -1.0, std::pair{3.0, 3.0});
  EXPECT_EQ(q.nEst, 1u);
  EXPECT_LT(q.windowLo, q.windowHi);
  EXPECT_EQ(chooseQPEParameters(h2(), 100u).nEst, kMaxEstimationQubits);
}

} // namespace
