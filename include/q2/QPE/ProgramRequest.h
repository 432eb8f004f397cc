//===- ProgramRequest.h - What to build from a Hamiltonian ------*- C++ -*-===//
//
// The one program request of q2-qpe, q2-opt's Hamiltonian inputs (Phase A)
// and Python. Its fields, defaults, flag and keyword names and help are
// declared once, in ProgramRequest.def; the front ends set fields by name
// (set) and check them (validate) before any expensive step; planProgram
// (ProgramPlan.h) resolves a request against a Hamiltonian.
//
// A light header (no MLIR, no Hamiltonian code).
//
//===----------------------------------------------------------------------===//
#ifndef Q2_QPE_PROGRAMREQUEST_H
#define Q2_QPE_PROGRAMREQUEST_H

#include "q2/QPE/QPEMetadata.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace q2::qpe {

/// An energy window lo, hi in Hartree.
using EnergyWindow = std::pair<double, double>;

/// How an option's value is written.
enum class ProgramOptionKind {
  Count,  ///< a non-negative integer
  Steps,  ///< 'auto' (unset) or a positive integer
  Choice, ///< one of the words of the value description ("fixed|dynamic")
  Switch, ///< a boolean flag (no value on the command line)
  Real,   ///< a number
  Window, ///< two numbers "lo,hi"
};

/// Errors name an option as its flag ("--n-est") or as its Python keyword
/// ("n_est").
enum class OptionSpelling { Flag, Python };

/// What to build from a Hamiltonian, with q2-qpe's defaults.
struct ProgramRequest {
#define Q2_PROGRAM_OPTION(TYPE, FIELD, KIND, FLAG, PY, DEFAULT, VALUE, HELP)  \
  TYPE FIELD = DEFAULT;
#include "q2/QPE/ProgramRequest.def"

  /// Sets the option called `name` (its flag without dashes, or its Python
  /// keyword) from its command-line text: "auto" or "8", "fixed",
  /// "-1.5,0.5", "true"/"false" for a switch. Errors name the option in
  /// `spelling`; an unknown name is an error listing the known ones.
  llvm::Error set(llvm::StringRef name, llvm::StringRef text,
                  OptionSpelling spelling = OptionSpelling::Flag);
  /// An option's value as `set` reads it ("auto" for n-trotter, "" for an
  /// unset optional value); empty for an unknown name.
  std::string get(llvm::StringRef name) const;

  /// Refuses values no program can have, before anything expensive runs
  /// (psi4, reading the Hamiltonian, planning): n_est outside 1..32, an
  /// n_trotter outside [1, kMaxWireSteps], an order other than 1 or 2, a
  /// resolution or base time that is not finite and > 0, a shift that is
  /// not finite, a window that is not finite lo < hi wider than 1e-9 Ha.
  llvm::Error validate(OptionSpelling spelling = OptionSpelling::Flag) const;
};

/// One option of the request, as ProgramRequest.def declares it.
struct ProgramOptionInfo {
  llvm::StringRef field; ///< C++ field name ("nEst")
  ProgramOptionKind kind;
  llvm::StringRef flag;      ///< "n-est" (q2-qpe's --n-est)
  llvm::StringRef pyName;    ///< "n_est" (q2.compile's keyword)
  llvm::StringRef valueDesc; ///< "N", "fixed|dynamic", ... ("" for a switch)
  llvm::StringRef help;
  /// The name in `spelling`: "--n-est" or "n_est".
  std::string name(OptionSpelling spelling) const;
  /// `help`, followed by " (default X)" where the default is a value.
  std::string helpWithDefault() const;
};

/// Every option, in the order of ProgramRequest.def.
llvm::ArrayRef<ProgramOptionInfo> programOptions();
/// The option called `name` (flag or Python keyword), or null.
const ProgramOptionInfo *findProgramOption(llvm::StringRef name);

} // namespace q2::qpe

#endif // Q2_QPE_PROGRAMREQUEST_H
