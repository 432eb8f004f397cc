//===- QPEParameters.cpp - Time step and energy window for QPE ------------===//
#include "q2/QPE/QPEParameters.h"
#include "FormatReal.h"

#include <algorithm>
#include <cmath>

using namespace llvm;
using q2::qpe::detail::formatReal;

namespace q2::qpe {
using hamiltonian::QubitHamiltonian;

static constexpr double kTwoPi = 6.283185307179586476925286766559;

/// [c0 - lambda, c0 + lambda] contains every eigenvalue (triangle inequality,
/// ||P|| = 1); a zero lambda gets a nominal +-1 Ha so that t stays finite.
static std::pair<double, double> defaultWindow(const QubitHamiltonian &h) {
  double c0 = h.identityCoeff(), lambda = h.oneNorm();
  if (!(lambda > 0))
    lambda = 1.0;
  return {c0 - lambda, c0 + lambda};
}

static QPEParameters fromWindow(double lo, double hi, unsigned nEst) {
  QPEParameters p;
  double w = hi - lo;
  p.windowLo = lo;
  p.windowHi = hi;
  p.baseTime = kTwoPi / w;
  p.energyShift = hi;
  p.nEst = nEst;
  p.resolution = w / std::ldexp(1.0, int(nEst));
  return p;
}

static unsigned autoNEst(double w, double target) {
  double bits = std::ceil(std::log2(w / target));
  return bits < 1 ? 1u : bits > 1000 ? 1000u : unsigned(bits);
}

Expected<QPEParameters>
computeQPEParameters(const QubitHamiltonian &h, std::optional<unsigned> nEst,
                     double targetResolution,
                     std::optional<std::pair<double, double>> window) {
  if (!std::isfinite(targetResolution) || !(targetResolution > 0))
    return createStringError("QPE target resolution must be a positive number, got " +
                      formatReal(targetResolution));
  if (!window && (!std::isfinite(h.oneNorm()) ||
                  !std::isfinite(h.identityCoeff())))
    return createStringError("QPE window: the 1-norm of " +
                      (h.name.empty() ? std::string("the Hamiltonian") : h.name) +
                      " is not finite (coefficients too large)");
  auto [lo, hi] = window ? *window : defaultWindow(h);
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(lo < hi))
    return createStringError("QPE energy window [" + formatReal(lo) + ", " + formatReal(hi) +
                      "] is empty or not finite");
  unsigned n = nEst ? *nEst : autoNEst(hi - lo, targetResolution);
  if (n < 1 || n > kMaxEstimationQubits)
    return createStringError(Twine(nEst ? "n_est = " : "the resolution needs n_est = ") +
                      Twine(n) + ", supported are 1.." +
                      Twine(kMaxEstimationQubits));
  return fromWindow(lo, hi, n);
}

QPEParameters chooseQPEParameters(const QubitHamiltonian &h,
                                  std::optional<unsigned> nEst,
                                  double targetResolution,
                                  std::optional<std::pair<double, double>> window) {
  auto [lo, hi] = window ? *window : defaultWindow(h);
  if (!(lo < hi) || !std::isfinite(lo) || !std::isfinite(hi))
    std::tie(lo, hi) = defaultWindow(h);
  if (!(targetResolution > 0) || !std::isfinite(targetResolution))
    targetResolution = 3e-3;
  unsigned n = nEst ? *nEst : autoNEst(hi - lo, targetResolution);
  n = std::clamp(n, 1u, kMaxEstimationQubits);
  return fromWindow(lo, hi, n);
}

double decodeEnergy(uint64_t measuredIndex, const QPEParameters &p) {
  return p.energyShift -
         kTwoPi * double(measuredIndex) / (std::ldexp(1.0, int(p.nEst)) * p.baseTime);
}

double energyToPhase(double energy, const QPEParameters &p) {
  double phi = (p.energyShift - energy) * p.baseTime / kTwoPi;
  phi -= std::floor(phi);
  return phi;
}

} // namespace q2::qpe
