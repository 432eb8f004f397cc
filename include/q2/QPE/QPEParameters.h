//===- QPEParameters.h - Time step and energy window for QPE -----*- C++ -*-===//
//
// The controlled unitary is U = exp(-i (H - shift) t). For a window
// [lo, hi] containing the spectrum, with W = hi - lo:
//   t = 2 pi / W,  shift = hi,
// so an eigenvalue E has phase phi = (shift - E) t / (2 pi) = (hi - E)/W in
// [0, 1) for E in (lo, hi]. With n_est estimation qubits the measured index m
// decodes to E = shift - 2 pi m / (2^n_est t) = hi - m W / 2^n_est, and the
// resolution is W / 2^n_est.
// Default window: the guaranteed bound [c0 - lambda, c0 + lambda] (c0 the
// identity coefficient, lambda the 1-norm of the other terms).
// Default n_est = ceil(log2(W / targetResolution)) (at least 1).
//
//===----------------------------------------------------------------------===//
#ifndef Q2_QPE_QPEPARAMETERS_H
#define Q2_QPE_QPEPARAMETERS_H

#include "q2/Hamiltonian/QubitHamiltonian.h"

#include <cstdint>
#include <optional>
#include <utility>

namespace q2::qpe {

struct QPEParameters {
  double baseTime;    ///< t (Hartree^-1): U = exp(-i (H - shift) t)
  double energyShift; ///< = windowHi
  double windowLo, windowHi;
  double resolution;  ///< achieved: (hi - lo) / 2^nEst
  unsigned nEst;
};

/// Upper limit on estimation qubits accepted by computeQPEParameters.
constexpr unsigned kMaxEstimationQubits = 32;

/// Validating version: rejects nEst < 1 or > kMaxEstimationQubits, a
/// non-positive or non-finite resolution, and windows with lo >= hi or
/// non-finite ends (an auto-chosen nEst above the limit is an error too).
llvm::Expected<QPEParameters>
computeQPEParameters(const hamiltonian::QubitHamiltonian &h,
                     std::optional<unsigned> nEst,
                     double targetResolution = 3e-3,
                     std::optional<std::pair<double, double>> window = {});

/// The contract version for already-validated arguments. Degenerate cases
/// are made safe instead of failing: a zero 1-norm gives a window of +-1 Ha
/// around c0, nEst is clamped to [1, kMaxEstimationQubits].
QPEParameters
chooseQPEParameters(const hamiltonian::QubitHamiltonian &h,
                    std::optional<unsigned> nEst,
                    double targetResolution = 3e-3,
                    std::optional<std::pair<double, double>> window = {});

/// E = shift - 2 pi m / (2^nEst t).
double decodeEnergy(uint64_t measuredIndex, const QPEParameters &p);

/// phi = (shift - E) t / (2 pi), reduced to [0, 1).
double energyToPhase(double energy, const QPEParameters &p);

} // namespace q2::qpe

// Their names from before they moved out of lib/Hamiltonian.
namespace q2::hamiltonian {
using qpe::chooseQPEParameters;
using qpe::computeQPEParameters;
using qpe::decodeEnergy;
using qpe::energyToPhase;
using qpe::kMaxEstimationQubits;
using qpe::QPEParameters;
} // namespace q2::hamiltonian

#endif // Q2_QPE_QPEPARAMETERS_H
