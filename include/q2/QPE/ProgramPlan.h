//===- ProgramPlan.h - Trotter steps and reference energies -----*- C++ -*-===//
//
// What q2-qpe decides before building a program: the Trotter step counts
// (chosen from the commutator bound of docs/trotter-error.md, or evaluated
// for an explicit --n-trotter N) and the reference energies of the sector
// (exact and Hartree-Fock) that the metadata carries so a run can say how
// far its energy is from the exact one.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_QPE_PROGRAMPLAN_H
#define Q2_QPE_PROGRAMPLAN_H

#include "q2/Hamiltonian/ExactSolver.h"
#include "q2/Hamiltonian/TrotterError.h"
#include "q2/QPE/ProgramRequest.h"
#include "q2/QPE/QPEProgram.h"

#include <optional>
#include <string>
#include <utility>

namespace q2::qpe {

struct ProgramPlan {
  hamiltonian::TrotterPlan trotter;
  bool automatic = true; ///< steps chosen from the bound (--n-trotter auto)
  std::optional<hamiltonian::ExactResult> exact;
  std::string exactError; ///< why `exact` is unset
  double hfEnergy = 0;    ///< <HF|H|HF> (also when `exact` is unset)
  bool hasHF = false;
};

/// Chooses the steps (nTrotter unset: the smallest per-wire counts whose
/// bound stays <= fraction * resolution) or evaluates the explicit count,
/// for `options.order` and `options.power`, and computes the reference
/// energies (a sector above `maxSectorDim` leaves `exact` unset). Fills
/// `options` (nTrotter or trotterSteps, trotterBound, exactEnergy,
/// hfEnergy). Errors: those of chooseTrotterSteps / trotterPlanForSteps.
llvm::Expected<ProgramPlan>
planProgram(const hamiltonian::QubitHamiltonian &h,
            const hamiltonian::QPEParameters &params,
            std::optional<uint64_t> nTrotter, QPEOptions &options,
            double fraction = hamiltonian::kDefaultTrotterErrorFraction,
            size_t maxSectorDim = hamiltonian::kDefaultMaxSectorDim);

/// A request resolved against a Hamiltonian: what buildQPEProgram takes.
struct PreparedProgram {
  hamiltonian::QPEParameters params;
  ProgramPlan plan;
  QPEOptions options; ///< steps, bound and reference energies filled in
};

/// The QPE parameters (n_est from the resolution and window unless given,
/// then the base-time and energy-shift overrides), the plan (planProgram)
/// and the builder's options, as q2-qpe decides them. Errors: an order
/// other than 1 or 2, those of computeQPEParameters and planProgram.
llvm::Expected<PreparedProgram>
prepareProgram(const hamiltonian::QubitHamiltonian &h,
               const ProgramRequest &request);

} // namespace q2::qpe

#endif // Q2_QPE_PROGRAMPLAN_H
