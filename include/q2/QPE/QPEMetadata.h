//===- QPEMetadata.h - What a QPE program is, without MLIR ------*- C++ -*-===//
//
// The facts needed to run a compiled QPE program and decode its result:
// sizes, mode, time step, shift, the default coefficients. In MLIR they are
// the module attribute `quantum.qpe = #quantum.qpe<...>` (QPEProgram.h); in
// an object file they are JSON text in the section ".q2.qpe" (so a saved
// object can be run); here they are a plain struct, with the one decoder of
// measured outcomes into energies.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_QPE_QPEMETADATA_H
#define Q2_QPE_QPEMETADATA_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace q2::qpe {

enum class Mode { Fixed, Dynamic };
enum class Power { Time, Repeat };
llvm::StringRef toString(Mode m);
llvm::StringRef toString(Power p);
std::optional<Mode> parseMode(llvm::StringRef s);
std::optional<Power> parsePower(llvm::StringRef s);

/// Name of the entry point; its C interface is _mlir_ciface_qpe.
inline constexpr const char *kEntryName = "qpe";
/// Object-file section (and symbol) carrying the metadata as JSON.
inline constexpr const char *kObjectSection = ".q2.qpe";
inline constexpr const char *kObjectSymbol = "__q2_qpe_metadata";
/// Compiled function `void __q2_qpe_shape(int64_t out[2])`: the number of
/// coefficients the entry point reads (0: fixed mode) and of outcomes it
/// writes, as code rather than editable data; the host checks the metadata
/// against it before the first call.
inline constexpr const char *kShapeSymbol = "__q2_qpe_shape";
/// Format of that JSON. /2 added the Trotter step table, the bound and the
/// reference energies; /1 is still read (without them), others are refused.
inline constexpr const char *kObjectFormat = "q2.qpe/2";
inline constexpr const char *kObjectFormatV1 = "q2.qpe/1";

/// A call whose probabilities sum to further from 1 than this is reported
/// as unreliable (q2-opt warns, the report's set carries `warning`).
inline constexpr double kProbSumTolerance = 1e-6;

/// Largest Trotter step count of one wire (n_trotter is 32-bit).
inline constexpr uint64_t kMaxWireSteps = UINT32_MAX;

struct QPEMetadata {
  std::string molecule;
  unsigned nSystem = 0, nEst = 0, nTrotter = 0, nTerms = 0, order = 0;
  Mode mode = Mode::Dynamic;
  Power power = Power::Time;
  bool unroll = false;
  double baseTime = 0, energyShift = 0, resolution = 0;
  std::vector<std::string> words;    ///< Pauli word per coefficient
  std::vector<double> defaultCoeffs; ///< one per word
  /// Trotter steps of estimation wire k's evolution (of t_k = 2^k t for
  /// power=time; of t, done 2^k times, for power=repeat). Empty: every wire
  /// uses nTrotter; otherwise one entry per wire and nTrotter is the largest.
  std::vector<uint64_t> trotterSteps;
  /// Ha: rigorous bound on the shift of the energies the QPE reads, for the
  /// default coefficients (docs/trotter-error.md); unset when not computed.
  std::optional<double> trotterBound;
  /// Ha: exact ground energy of the sector and <HF|H|HF>, for the default
  /// coefficients; unset when the sector was too large to diagonalise.
  std::optional<double> exactEnergy, hfEnergy;
  unsigned numQubits() const { return nSystem + nEst; }
  /// Coefficients the entry point takes: n_terms (dynamic) or 0 (fixed).
  unsigned numCoeffArgs() const { return mode == Mode::Dynamic ? nTerms : 0; }
  /// Steps of one evolution on wire k (trotterSteps[k] or nTrotter).
  uint64_t stepsOfWire(unsigned k) const {
    return trotterSteps.empty() ? nTrotter : trotterSteps[k];
  }
  /// Sum over wires of their step counts * n_terms: what IR size scales
  /// with when unrolled (n_est * n_trotter * n_terms for one step count).
  uint64_t irScale() const;
  /// Checks ranges and consistency (the same rules as the attribute's
  /// verifier); errors name the field.
  llvm::Error validate() const;
};

/// The JSON stored in an object's .q2.qpe section.
std::string toObjectJSON(const QPEMetadata &md);
/// Parses and validates it; `source` names it in errors.
llvm::Expected<QPEMetadata> fromObjectJSON(llvm::StringRef text,
                                           llvm::StringRef source);

/// Reads the metadata of a relocatable object compiled by q2-opt. Refuses a
/// file that is not an ELF object for this host, has no .q2.qpe section
/// (not compiled from a QPE program by q2-opt), an unknown format, or no
/// entry point.
llvm::Expected<QPEMetadata> readObjectMetadata(llvm::ArrayRef<char> object,
                                               llvm::StringRef source);

/// The QPE readout of one run.
struct QPEResult {
  std::vector<double> probs;
  double probSum = 0;
  uint64_t argmax = 0;
  double phase = 0;  ///< argmax / 2^nEst
  double energy = 0; ///< energyOfOutcome(argmax)
  /// Probability of the peak: outcomes argmax-1, argmax, argmax+1 (cyclic,
  /// as phases are), and the probability-weighted energy over them.
  double peakMass = 0;
  double peakEnergy = 0;
};

/// E = shift - 2 pi m / (2^nEst t): the energy outcome m stands for.
double energyOfOutcome(const QPEMetadata &md, uint64_t m);
/// `probs` has 2^nEst entries.
QPEResult decode(std::vector<double> probs, const QPEMetadata &md);
/// The same readout without taking the probabilities (`probs` of the result
/// stays empty): for callers that own the buffer, e.g. a NumPy array.
QPEResult decodeView(llvm::ArrayRef<double> probs, const QPEMetadata &md);

/// Ha: the Trotter bound (docs/trotter-error.md) of the program's step
/// counts for the coefficients `coeffs` (one per word; empty: the defaults,
/// whose bound the metadata may already hold).
llvm::Expected<double> trotterBoundFor(const QPEMetadata &md,
                                       llvm::ArrayRef<double> coeffs);

} // namespace q2::qpe

#endif // Q2_QPE_QPEMETADATA_H
