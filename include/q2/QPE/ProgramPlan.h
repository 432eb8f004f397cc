//===- ProgramPlan.h - A program request resolved -------------*- C++ -*-===//
//
// What q2-qpe, q2-opt (Phase A) and Python decide before building a
// program, from a ProgramRequest and a Hamiltonian: the QPE parameters, the
// Trotter step counts (chosen from the commutator bound of
// docs/trotter-error.md, or evaluated for an explicit --n-trotter N), the
// reference energies of the sector (exact and Hartree-Fock) that the
// metadata carries so a run can say how far its energy is from the exact
// one, and the builder's options. `--info` prints a plan; buildProgram
// builds it.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_QPE_PROGRAMPLAN_H
#define Q2_QPE_PROGRAMPLAN_H

#include "q2/Hamiltonian/ExactSolver.h"
#include "q2/QPE/TrotterError.h"
#include "q2/QPE/ProgramRequest.h"
#include "q2/ProgramBuilder/QPEProgram.h"

#include <optional>
#include <string>

namespace q2::qpe {

struct ProgramPlan {
  ProgramRequest request; ///< what was asked
  hamiltonian::QPEParameters params;
  hamiltonian::TrotterPlan trotter;
  bool automatic = true; ///< steps chosen from the bound (--n-trotter auto)
  std::optional<hamiltonian::ExactResult> exact;
  std::string exactError; ///< why `exact` is unset
  double hfEnergy = 0;    ///< <HF|H|HF> (also when `exact` is unset)
  bool hasHF = false;
  /// What buildQPEProgram takes: the request's mode, order, power and
  /// unroll, the steps, their bound and the reference energies.
  QPEOptions options;

  /// For an explicit step count whose bound exceeds the resolution: the
  /// warning q2-qpe prints (the energy may be off by more than one bin).
  std::optional<std::string> warning() const;
};

/// Resolves `request` (left as it is) against `h`: validates it, computes
/// the QPE parameters (n_est from the resolution and window unless given,
/// then the base-time and energy-shift overrides), chooses the steps
/// (nTrotter unset: the smallest per-wire counts whose bound stays <=
/// fraction * resolution) or evaluates the explicit count, runs the
/// builder's checks (checkQPEProgram: sizes, --unroll limits), and only then
/// computes the reference energies (a sector above `maxSectorDim` leaves
/// `exact` unset). Errors: those of validate, computeQPEParameters,
/// chooseTrotterSteps / trotterPlanForSteps and checkQPEProgram.
llvm::Expected<ProgramPlan>
planProgram(const hamiltonian::QubitHamiltonian &h,
            const ProgramRequest &request,
            double fraction = hamiltonian::kDefaultTrotterErrorFraction,
            size_t maxSectorDim = hamiltonian::kDefaultMaxSectorDim);

/// Builds the planned program (buildQPEProgram with the plan's parameters
/// and options).
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
buildProgram(mlir::MLIRContext &ctx, const hamiltonian::QubitHamiltonian &h,
             const ProgramPlan &plan);

/// q2-qpe --info: what a chemist checks before compiling: the Hamiltonian,
/// its exact and HF energies, the plan (or `planError`, why there is none)
/// and, when `psi4JSON` is not empty, psi4's energies (psi4_fcidump.py's
/// result). As text, or with `json` as one JSON object.
std::string formatProgramInfo(const hamiltonian::QubitHamiltonian &h,
                              const ProgramPlan *plan,
                              llvm::StringRef planError,
                              llvm::StringRef psi4JSON, bool json);

} // namespace q2::qpe

#endif // Q2_QPE_PROGRAMPLAN_H
