//===- ProgramPlan.h - A program request resolved -------------*- C++ -*-===//
//
// What q2-qpe, q2-opt (Phase A) and Python decide before building a
// program, from a ProgramRequest and a Hamiltonian: the QPE parameters, the
// Trotter step counts (chosen from the commutator bound of
// docs/trotter-error.md, or evaluated for an explicit --n-trotter N), the
// reference energies of the sector (exact and Hartree-Fock) that the
// metadata carries so a run can say how far its energy is from the exact
// one, and the builder's options. `--info` prints a plan; buildProgram
// (q2/ProgramBuilder/QPEProgram.h) builds it. MLIR-free.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_QPE_PROGRAMPLAN_H
#define Q2_QPE_PROGRAMPLAN_H

#include "q2/Hamiltonian/ExactSolver.h"
#include "q2/QPE/TrotterError.h"
#include "q2/QPE/ProgramRequest.h"
#include "q2/QPE/QPEParameters.h"

#include <optional>
#include <string>
#include <vector>

namespace q2::qpe {

/// What buildQPEProgram takes: the request's choices (defaults from
/// ProgramRequest.def) and the steps planProgram decided.
struct QPEOptions {
  Mode mode = ProgramRequest().mode;
  unsigned order = ProgramRequest().order; ///< Trotter order: 1 or 2
  unsigned nTrotter = 1; ///< Trotter steps per controlled evolution
  /// Per-wire steps (QPEMetadata::trotterSteps); when set, it replaces
  /// nTrotter. A table of equal entries is stored as that one n_trotter.
  std::vector<uint64_t> trotterSteps;
  Power power = ProgramRequest().power;
  bool unroll = ProgramRequest().unroll; ///< straight-line code (stress case)
  /// How a rolled program writes a Trotter step: one quantum.gate_table
  /// (a record per term, the step's angle tensor as its parameters; what
  /// q2-qpe writes) or one pauli_rot op per term (the form before tables,
  /// kept to compare the two; unrolled programs always use ops: they are
  /// the op-level stress case).
  enum class Rotations { Table, Ops };
  Rotations rotations = Rotations::Table;
  /// Copied into the metadata (Ha): the Trotter bound for these steps and
  /// the reference energies of the default coefficients.
  std::optional<double> trotterBound, exactEnergy, hfEnergy;
};

/// Largest unrolled program buildQPEProgram makes (--unroll): Trotter steps
/// in all, and Pauli rotations (each several ops with its extracts and
/// inserts; see docs/reliability.md for what the limit costs).
inline constexpr uint64_t kMaxUnrolledSteps = uint64_t(1) << 20;
inline constexpr uint64_t kMaxUnrolledRotations = uint64_t(1) << 22;

/// The checks of buildQPEProgram, without building (planProgram runs them
/// before the reference energies): the options as built (a table of equal
/// counts folded into nTrotter), or the first rule they break.
llvm::Expected<QPEOptions>
checkQPEProgram(const hamiltonian::QubitHamiltonian &h,
                const qpe::QPEParameters &params, const QPEOptions &options);

struct ProgramPlan {
  ProgramRequest request; ///< what was asked
  qpe::QPEParameters params;
  qpe::TrotterPlan trotter;
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
            double fraction = qpe::kDefaultTrotterErrorFraction,
            size_t maxSectorDim = hamiltonian::kDefaultMaxSectorDim);

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
