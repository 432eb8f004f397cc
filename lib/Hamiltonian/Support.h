//===- Support.h - Private helpers of the Hamiltonian library ----*- C++ -*-===//
#ifndef Q2_LIB_HAMILTONIAN_SUPPORT_H
#define Q2_LIB_HAMILTONIAN_SUPPORT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <optional>
#include <string>

namespace q2::hamiltonian::detail {

/// "file:line: message".
inline llvm::Error locError(llvm::StringRef file, unsigned line,
                            const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 (file + ":" + llvm::Twine(line) + ": " + msg)
                                     .str());
}

inline llvm::Error plainError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg.str());
}

/// Reads a whole file; the error names the file.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> readFile(llvm::StringRef path);

/// Parses a real number, also with a Fortran 'D' exponent and a leading '+'.
/// Rejects trailing garbage, NaN and infinities; \p notFinite (if given) is
/// set when the text is a number that is not finite as a double ("1e400",
/// "inf", "nan").
std::optional<double> parseReal(llvm::StringRef text, bool *notFinite = nullptr);

/// The largest |value| accepted for an integral or a Pauli coefficient, in
/// Hartree (see kMaxCoefficientMagnitude in QubitHamiltonian.h).
std::string magnitudeMessage(double v);

/// Formats a double for messages ("%.10g").
std::string fmt(double v);

/// Parses a (possibly signed) decimal integer.
std::optional<long long> parseInteger(llvm::StringRef text);

} // namespace q2::hamiltonian::detail

#endif // Q2_LIB_HAMILTONIAN_SUPPORT_H
