//===- QPEProgram.h - Hamiltonian -> stage-0 QPE program --------*- C++ -*-===//
//
// Builds the stage-0 module of DESIGN §4 and reads its metadata back (the
// driver decodes phase -> energy from the module alone, no side files).
//
//===----------------------------------------------------------------------===//
#ifndef Q2_QPE_QPEPROGRAM_H
#define Q2_QPE_QPEPROGRAM_H

#include "q2/Hamiltonian/QPEParameters.h"
#include "q2/Hamiltonian/QubitHamiltonian.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace q2::qpe {

enum class Mode { Fixed, Dynamic };
enum class Power { Time, Repeat };

struct QPEOptions {
  Mode mode = Mode::Dynamic;
  unsigned order = 2;    ///< Trotter order: 1 or 2
  unsigned nTrotter = 1; ///< Trotter steps per controlled evolution
  Power power = Power::Time;
  bool unroll = false;   ///< emit straight-line code (the stress case)
};

/// Name of the module attribute carrying QPEMetadata.
inline constexpr const char *kMetadataAttrName = "q2.qpe";
/// Name of the entry point.
inline constexpr const char *kEntryName = "qpe";

/// Everything the driver needs to run the program and decode its result.
struct QPEMetadata {
  std::string molecule;
  unsigned nSystem = 0, nEst = 0, nTrotter = 0, nTerms = 0, order = 0;
  Mode mode = Mode::Dynamic;
  Power power = Power::Time;
  bool unroll = false;
  double baseTime = 0, energyShift = 0, resolution = 0;
  std::vector<std::string> words;    ///< Pauli word per coefficient
  std::vector<double> defaultCoeffs; ///< one per word
  unsigned numQubits() const { return nSystem + nEst; }
  /// n_est * n_trotter * n_terms: what IR size scales with when unrolled.
  uint64_t irScale() const { return uint64_t(nEst) * nTrotter * nTerms; }
};

llvm::StringRef toString(Mode m);
llvm::StringRef toString(Power p);

/// Builds the program. Errors: n_est < 1 or > 32, n_trotter < 1, order not
/// 1/2, more than 62 qubits in all, a Hamiltonian without terms.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
buildQPEProgram(mlir::MLIRContext &ctx,
                const hamiltonian::QubitHamiltonian &h,
                const hamiltonian::QPEParameters &params,
                const QPEOptions &options);

/// Reads the metadata attribute; an error names what is missing.
llvm::Expected<QPEMetadata> readQPEMetadata(mlir::ModuleOp module);

} // namespace q2::qpe

#endif
