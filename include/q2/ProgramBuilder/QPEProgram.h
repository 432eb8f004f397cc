//===- QPEProgram.h - Hamiltonian -> stage-0 QPE program --------*- C++ -*-===//
//
// Builds the stage-0 module (docs/pipeline.md) of a planned program
// (q2/QPE/ProgramPlan.h): TOSA angle arithmetic and quantum ops, its
// metadata as the module attribute `qpe.metadata`; or writes the same
// program as text without building it.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_PROGRAMBUILDER_QPEPROGRAM_H
#define Q2_PROGRAMBUILDER_QPEPROGRAM_H

#include "q2/Hamiltonian/QubitHamiltonian.h"
#include "q2/QPE/ProgramPlan.h"
#include "q2/QPE/QPEParameters.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace q2::qpe {

/// Builds the program. Errors: n_est < 1 or > 32, n_trotter < 1 (or a step
/// table that is not one entry >= 1 per wire), order not 1/2, more than 62
/// qubits in all, a Hamiltonian without terms, an unrolled program above
/// kMaxUnrolledSteps / kMaxUnrolledRotations.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
buildQPEProgram(mlir::MLIRContext &ctx, const hamiltonian::QubitHamiltonian &h,
                const qpe::QPEParameters &params, const QPEOptions &options);

/// Writes the program buildQPEProgram builds, as its printer would
/// (OpPrintingFlags().assumeVerified()), byte for byte. The table form (a
/// record per term) is small and printed; the ops form of a rolled program
/// streams its Trotter step without building its ops. Same errors as
/// buildQPEProgram.
llvm::Error writeQPEProgram(llvm::raw_ostream &os, mlir::MLIRContext &ctx,
                            const hamiltonian::QubitHamiltonian &h,
                            const qpe::QPEParameters &params,
                            const QPEOptions &options);

/// Builds the planned program (buildQPEProgram with the plan's parameters
/// and options).
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
buildProgram(mlir::MLIRContext &ctx, const hamiltonian::QubitHamiltonian &h,
             const ProgramPlan &plan);

} // namespace q2::qpe

#endif
