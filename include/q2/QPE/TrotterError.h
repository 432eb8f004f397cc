//===- TrotterError.h - Commutator bounds of Trotter error -------*- C++ -*-===//
//
// Rigorous Trotter error bounds with commutator scaling (A. M. Childs, Y. Su,
// M. C. Tran, N. Wiebe, S. Zhu, "Theory of Trotter error with commutator
// scaling", Phys. Rev. X 11, 011020 (2021)) for H = sum_g H_g, H_g = c_g P_g,
// with the terms in the order in which the QPE program applies them
// (lib/ProgramBuilder/QPEProgramBuilder.cpp; H_1 = terms[0] is applied first):
//
//   S1(dt) = e^{-i dt H_G} ... e^{-i dt H_1}
//   S2(dt) = e^{-i dt/2 H_1} ... e^{-i dt/2 H_{G-1}} e^{-i dt H_G}
//            e^{-i dt/2 H_{G-1}} ... e^{-i dt/2 H_1}
//
//   ||e^{-iH dt} - S1(dt)|| <= dt^2/2 * alpha1,
//     alpha1 = sum_g1 || [ sum_{g2>g1} H_g2 , H_g1 ] ||
//   ||e^{-iH dt} - S2(dt)|| <= dt^3 * alpha2,
//     alpha2 = 1/12 sum_g1 || [ sum_{g3>g1} H_g3, [ sum_{g2>g1} H_g2, H_g1 ] ] ||
//            + 1/24 sum_g1 || [ H_g1, [ H_g1, sum_{g2>g1} H_g2 ] ] ||
//   n steps: ||e^{-iH t} - S(t/n)^n|| <= n * bound(t/n)  (and always <= 2).
//
// The nested commutators are evaluated exactly in the Pauli algebra (two
// words anticommute iff popcount((x1 & z2) ^ (z1 & x2)) is odd, and then
// [aP, bQ] = 2ab PQ), equal words are collected, and the norm of each
// collected sum is bounded by the sum of |coefficients| (triangle inequality,
// ||P|| = 1). Identity terms commute with everything and drop out exactly.
//
// From an operator-norm error to an energy error (docs/trotter-error.md):
// U and V unitary, ||U - V|| <= eps. Both are normal, so by the Bauer-Fike
// theorem every eigenvalue of V lies within eps of an eigenvalue of U and
// vice versa; on the unit circle a chord of length eps is an arc of
// 2 asin(eps/2) <= (pi/2) eps. An evolution for time t therefore shifts the
// eigenphases by at most dphi = 2 asin(min(1, eps/2)) and the effective
// energies by dE = dphi / t.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_QPE_TROTTERERROR_H
#define Q2_QPE_TROTTERERROR_H

#include "q2/QPE/QPEParameters.h"
#include "q2/Hamiltonian/QubitHamiltonian.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace q2::qpe {

/// How estimation wire k gets U^(2^k) (the bound's view of the request's
/// Power).
enum class TrotterPower {
  Time,  ///< wire k: S(t_k / n_k)^(n_k) with t_k = 2^k * baseTime
  Repeat ///< wire k: (S(baseTime / n)^n)^(2^k), one n for every wire
};

/// The commutator constants of the bounds above (Hartree^2 and Hartree^3).
struct TrotterCommutators {
  unsigned numTerms = 0;     ///< non-identity terms that entered the sums
  double alpha1 = 0;         ///< sum_g1 ||[sum_{g2>g1} H_g2, H_g1]||
  double nested = 0;         ///< sum_g1 ||[sum_{g3>g1} H_g3, [sum_{g2>g1} H_g2, H_g1]]||
  double selfNested = 0;     ///< sum_g1 ||[H_g1, [H_g1, sum_{g2>g1} H_g2]]||
  bool hasOrder2 = false;    ///< nested/selfNested were computed
  /// True when the sums were bounded termwise (||[A,B]|| <= 2||A|| ||B||)
  /// instead of computed: above kMaxCommutatorTerms terms, where the exact
  /// sums cost minutes. Still rigorous, looser (more steps).
  bool triangle = false;
  /// nested / 12 + selfNested / 24 (requires hasOrder2).
  double alpha2() const { return nested / 12.0 + selfNested / 24.0; }
};

/// Above this many non-identity terms the commutator sums are bounded by the
/// triangle inequality (linear time) instead of computed (quadratic and
/// worse): H6 chain (919 terms) still gets the exact sums.
constexpr unsigned kMaxCommutatorTerms = 1000;

/// Computes the constants for the terms of \p h in their stored order
/// (order 1: alpha1 only; order 2: also the nested sums). Errors: order not
/// 1 or 2, malformed words, non-finite coefficients or results.
llvm::Expected<TrotterCommutators>
trotterCommutators(const hamiltonian::QubitHamiltonian &h, unsigned order);

/// ||e^{-iH dt} - S_order(dt)|| <= dt^2/2 alpha1 (order 1), dt^3 alpha2 (2).
double trotterStepBound(const TrotterCommutators &c, unsigned order, double dt);

/// n steps for time t: min(2, n * trotterStepBound(t / n)).
double trotterErrorBound(const TrotterCommutators &c, unsigned order, double t,
                         uint64_t steps);

/// Largest eigenphase shift of a unitary perturbed by eps in operator norm,
/// 2 asin(min(1, eps / 2)) (radians; pi when the bound says nothing).
double eigenphaseErrorBound(double operatorError);

/// Default of chooseTrotterSteps: the energy error implied by the bound stays
/// below a quarter of the QPE energy bin.
constexpr double kDefaultTrotterErrorFraction = 0.25;
/// chooseTrotterSteps fails when a wire would need more steps than this.
constexpr uint64_t kMaxTrotterSteps = uint64_t(1) << 40;

/// What the QPE program (and its metadata) needs to know about the Trotter
/// error: per-wire step counts and the rigorous bounds they give.
struct TrotterPlan {
  unsigned order = 2;
  TrotterPower power = TrotterPower::Time;
  double resolution = 0;        ///< Ha, the QPE energy bin (QPEParameters)
  double fraction = 0;          ///< requested error / resolution (0: explicit n)
  double targetEnergyError = 0; ///< Ha, fraction * resolution (0: explicit n)
  double alpha = 0;             ///< alpha1 (order 1) or alpha2 (order 2)
  /// Per estimation wire k = 0 .. nEst-1:
  std::vector<uint64_t> steps;  ///< Trotter steps of one evolution: of t_k
                                ///< (time), of baseTime (repeat, done 2^k times)
  std::vector<double> wireTime; ///< t_k = 2^k baseTime (total evolution time)
  std::vector<double> operatorError; ///< bound on ||U^(2^k) - V_k|| (<= 2)
  std::vector<double> energyError;   ///< Ha, bound on the eigenvalue shift
  double maxEnergyError = 0;    ///< Ha, max over the wires
  /// Sum of operatorError: bounds the change of the whole QPE circuit, hence
  /// the total-variation distance of the outcome distribution (capped at 1).
  double outcomeDistanceBound = 0;
  uint64_t totalSteps = 0;      ///< Trotter steps over all wires (saturating)
  bool withinTarget() const {
    return targetEnergyError > 0 && maxEnergyError <= targetEnergyError;
  }
  /// True if the bound exceeds the resolution (worth a warning).
  bool exceedsResolution() const { return maxEnergyError > resolution; }
};

/// `--n-trotter auto`: per wire the smallest step count whose bound keeps
/// the energy error <= fraction * p.resolution. Power::Time gives every wire
/// its own n_k (~ 2^k); Power::Repeat one n for baseTime (the eigenphases of
/// V^(2^k) are 2^k times those of V, so the energy error is the same on every
/// wire). Errors: order not 1/2, fraction not in (0, 1], bad parameters, or
/// more than kMaxTrotterSteps steps on a wire.
llvm::Expected<TrotterPlan>
chooseTrotterSteps(const hamiltonian::QubitHamiltonian &h,
                   const QPEParameters &p, unsigned order, TrotterPower power,
                   double fraction = kDefaultTrotterErrorFraction);
/// Same with precomputed constants (computed for at least \p order).
llvm::Expected<TrotterPlan>
chooseTrotterSteps(const TrotterCommutators &c, const QPEParameters &p,
                   unsigned order, TrotterPower power,
                   double fraction = kDefaultTrotterErrorFraction);

/// The bounds for an explicit `--n-trotter N` (the same N on every wire, as
/// the program uses it). Errors: order not 1/2, N = 0, bad parameters.
llvm::Expected<TrotterPlan>
trotterPlanForSteps(const hamiltonian::QubitHamiltonian &h,
                    const QPEParameters &p, unsigned order, TrotterPower power,
                    uint64_t nTrotter);
llvm::Expected<TrotterPlan> trotterPlanForSteps(const TrotterCommutators &c,
                                                const QPEParameters &p,
                                                unsigned order,
                                                TrotterPower power,
                                                uint64_t nTrotter);
/// The bounds for a per-wire step table (one entry per estimation wire, as
/// a program's `trotter_steps` metadata holds it), e.g. for coefficients
/// other than the ones the steps were chosen for. Errors: as above, and a
/// table whose size is not p.nEst.
llvm::Expected<TrotterPlan>
trotterPlanForSteps(const TrotterCommutators &c, const QPEParameters &p,
                    unsigned order, TrotterPower power,
                    const std::vector<uint64_t> &steps);

} // namespace q2::qpe

// Their names from before they moved out of lib/Hamiltonian.
namespace q2::hamiltonian {
using qpe::chooseTrotterSteps;
using qpe::eigenphaseErrorBound;
using qpe::kDefaultTrotterErrorFraction;
using qpe::kMaxCommutatorTerms;
using qpe::kMaxTrotterSteps;
using qpe::TrotterCommutators;
using qpe::trotterCommutators;
using qpe::trotterErrorBound;
using qpe::TrotterPlan;
using qpe::trotterPlanForSteps;
using qpe::TrotterPower;
using qpe::trotterStepBound;
} // namespace q2::hamiltonian

#endif // Q2_QPE_TROTTERERROR_H
