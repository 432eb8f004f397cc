//===- FormatReal.h - Numbers in the QPE model's messages -------*- C++ -*-===//
#ifndef Q2_LIB_QPE_FORMATREAL_H
#define Q2_LIB_QPE_FORMATREAL_H

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <string>

namespace q2::qpe::detail {
/// A number in a message ("%.10g", as the Hamiltonian readers print them).
inline std::string formatReal(double v) {
  return llvm::formatv("{0}", llvm::format("%.10g", v)).str();
}
} // namespace q2::qpe::detail

#endif // Q2_LIB_QPE_FORMATREAL_H
