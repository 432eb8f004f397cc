//===- QPEProgram.h - Hamiltonian -> stage-0 QPE program --------*- C++ -*-===//
//
// Builds the stage-0 module (docs/pipeline.md) and reads its metadata back
// from the `qpe.metadata` module attribute (the driver decodes phase ->
// energy from the module alone, no side files).
//
//===----------------------------------------------------------------------===//
#ifndef Q2_QPE_QPEPROGRAM_H
#define Q2_QPE_QPEPROGRAM_H

#include "q2/QPE/QPEParameters.h"
#include "q2/Hamiltonian/QubitHamiltonian.h"
#include "q2/QPE/ProgramRequest.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
class Pass;
} // namespace mlir

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

/// Builds the program. Errors: n_est < 1 or > 32, n_trotter < 1 (or a step
/// table that is not one entry >= 1 per wire), order not 1/2, more than 62
/// qubits in all, a Hamiltonian without terms, an unrolled program above
/// kMaxUnrolledSteps / kMaxUnrolledRotations.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
buildQPEProgram(mlir::MLIRContext &ctx,
                const hamiltonian::QubitHamiltonian &h,
                const hamiltonian::QPEParameters &params,
                const QPEOptions &options);

/// Writes the program buildQPEProgram builds, as its printer would
/// (OpPrintingFlags().assumeVerified()), byte for byte. The table form (a
/// record per term) is small and printed; the ops form of a rolled program
/// streams its Trotter step without building its ops. Same errors as
/// buildQPEProgram.
llvm::Error writeQPEProgram(llvm::raw_ostream &os, mlir::MLIRContext &ctx,
                            const hamiltonian::QubitHamiltonian &h,
                            const hamiltonian::QPEParameters &params,
                            const QPEOptions &options);

/// The checks of buildQPEProgram, without building (planProgram runs them
/// before the reference energies): the options as built (a table of equal
/// counts folded into nTrotter), or the first rule they break.
llvm::Expected<QPEOptions>
checkQPEProgram(const hamiltonian::QubitHamiltonian &h,
                const hamiltonian::QPEParameters &params,
                const QPEOptions &options);

/// Reads the `qpe.metadata` attribute (#qpe.metadata<...>, QPEDialect.h) (verified when the module was parsed);
/// an error says when the module is not a QPE program.
llvm::Expected<QPEMetadata> readQPEMetadata(mlir::ModuleOp module);

/// `q2-embed-qpe-metadata`: lowers the module's qpe.metadata attribute to an
/// LLVM-dialect constant in section .q2.qpe (the end of the LLVMDialect
/// stage), so the object carries what running it needs. A module without
/// the attribute is left alone.
std::unique_ptr<mlir::Pass> createEmbedQPEMetadataPass();
void registerQPEPasses();

} // namespace q2::qpe

#endif
