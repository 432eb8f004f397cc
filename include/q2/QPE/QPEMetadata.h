//===- QPEMetadata.h - What a QPE program is, without MLIR ------*- C++ -*-===//
//
// The facts needed to run a compiled QPE program and decode its result:
// sizes, mode, time step, shift, the default coefficients. Declared once,
// in QPEMetadata.def: in MLIR they are the module attribute
// `qpe.metadata = #qpe.metadata<...>` (IR/QPEDialect.h); in an object file
// JSON text in the section ".q2.qpe" (so a saved object can be run); in a
// report its "parameters"; here a plain struct, with the one decoder of
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
#include <type_traits>
#include <vector>

namespace q2::qpe {

enum class Mode { Fixed, Dynamic };
enum class Power { Time, Repeat };
// Inline so that layers that only carry the metadata (the profile report)
// need no link to this library.
inline llvm::StringRef toString(Mode m) {
  return m == Mode::Fixed ? "fixed" : "dynamic";
}
inline llvm::StringRef toString(Power p) {
  return p == Power::Time ? "time" : "repeat";
}
inline std::optional<Mode> parseMode(llvm::StringRef s) {
  if (s == "fixed")
    return Mode::Fixed;
  if (s == "dynamic")
    return Mode::Dynamic;
  return std::nullopt;
}
inline std::optional<Power> parsePower(llvm::StringRef s) {
  if (s == "time")
    return Power::Time;
  if (s == "repeat")
    return Power::Repeat;
  return std::nullopt;
}
// The enum spelling for generic (de)serializers (found by ADL).
inline std::optional<Mode> parseEnum(llvm::StringRef s, Mode *) {
  return parseMode(s);
}
inline std::optional<Power> parseEnum(llvm::StringRef s, Power *) {
  return parsePower(s);
}

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

/// Presence of a field (QPEMetadata.def): tags for visitFields' callback.
namespace field {
struct Required {};    ///< always written, must be given
struct UnlessEmpty {}; ///< a vector, written only when not empty
struct Optional {};    ///< a std::optional, written only when set
} // namespace field

/// What a QPE program is. The fields, their keys and defaults are declared
/// once, in QPEMetadata.def (documented there).
struct QPEMetadata {
#define Q2_QPE_FIELD(Type, Field, Key, Default, Presence) Type Field = Default;
#include "q2/QPE/QPEMetadata.def"

  unsigned numQubits() const { return nSystem + nEst; }
  /// Coefficients the entry point takes: n_terms (dynamic) or 0 (fixed).
  unsigned numCoeffArgs() const { return mode == Mode::Dynamic ? nTerms : 0; }
  /// Steps of one evolution on wire k (trotterSteps[k] or nTrotter).
  uint64_t stepsOfWire(unsigned k) const {
    return trotterSteps.empty() ? nTrotter : trotterSteps[k];
  }
  /// Sum over wires of their step counts * n_terms: what IR size scales
  /// with when unrolled (n_est * n_trotter * n_terms for one step count).
  uint64_t irScale() const {
    if (trotterSteps.empty())
      return uint64_t(nEst) * nTrotter * nTerms;
    uint64_t steps = 0;
    for (uint64_t n : trotterSteps)
      steps += n; // each <= kMaxWireSteps, at most 32 of them
    return steps * nTerms;
  }
  /// Checks ranges and consistency (the same rules as the attribute's
  /// verifier); errors name the field.
  llvm::Error validate() const;
};

/// Calls `fn(key, member, field::<Presence>{})` for every field of `md`, in
/// the order of QPEMetadata.def (the attribute's printing order).
template <class MD, class Fn> void visitFields(MD &md, Fn &&fn) {
#define Q2_QPE_FIELD(Type, Field, Key, Default, Presence)                       \
  fn(Key, md.Field, field::Presence{});
#include "q2/QPE/QPEMetadata.def"
}

/// Field by field (the attribute storage uniques on it).
inline bool operator==(const QPEMetadata &a, const QPEMetadata &b) {
#define Q2_QPE_FIELD(Type, Field, Key, Default, Presence)                       \
  if (!(a.Field == b.Field))                                                   \
    return false;
#include "q2/QPE/QPEMetadata.def"
  return true;
}
inline bool operator!=(const QPEMetadata &a, const QPEMetadata &b) {
  return !(a == b);
}

/// The JSON field list (lib/Support's field-list serialization; the object
/// section and the report's "parameters" both use it), plus the derived
/// `ir_scale`, written for readers and not read back.
template <class V, class R,
          std::enable_if_t<std::is_same_v<std::remove_const_t<R>, QPEMetadata>,
                           int> = 0>
void fields(V &v, R &r) {
  visitFields(r, [&](const char *key, auto &member, auto presence) {
    using P = decltype(presence);
    using T = std::remove_const_t<std::remove_reference_t<decltype(member)>>;
    if constexpr (std::is_same_v<P, field::Optional>)
      v.optional(key, member);
    else if constexpr (std::is_same_v<P, field::UnlessEmpty>)
      v.unlessDefault(key, member, T());
    else
      v(key, member);
  });
  v.derived("ir_scale", r.irScale());
}

/// The metadata as one JSON object (the field list above), as the profile
/// report's "parameters" holds it.
std::string toJSON(const QPEMetadata &md);
/// Reads what toJSON wrote (not validated: a q2.profile/2 report's
/// parameters lack the words); `source` names it in errors.
llvm::Expected<QPEMetadata> fromJSON(llvm::StringRef text,
                                     llvm::StringRef source);

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
