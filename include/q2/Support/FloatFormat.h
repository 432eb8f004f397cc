//===- FloatFormat.h - MLIR's text of an f64, fast ---------------*- C++ -*-===//
//
// MLIR prints a float (AsmPrinter::printFloat, a FloatAttr) through
// APFloat's arbitrary-precision decimal conversion: the value at 6 digits,
// parsed back to see whether that is exact, else at 17 digits. That costs
// some 25,000 instructions a value; a program carrying 10^5 coefficients
// spends most of its print there. This writes the same bytes with the same
// algorithm on fixed-width integers (and the C library's correctly rounded
// strtod for the check), falling back to APFloat where the values do not
// fit (subnormals, |v| outside about [1e-11, 1e60]) and for zeros,
// infinities and NaNs.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_SUPPORT_FLOATFORMAT_H
#define Q2_SUPPORT_FLOATFORMAT_H

#include "llvm/ADT/SmallVector.h"

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace q2 {

/// Appends the text MLIR's printer writes for the f64 `v`.
void formatMLIRFloat(double v, llvm::SmallVectorImpl<char> &out);

/// Writes the text MLIR's printer writes for the f64 `v` to `os`.
void writeMLIRFloat(llvm::raw_ostream &os, double v);

/// Appends APFloat::toString(v, 6, 0, false) ("1.500000e+00"), the form
/// MLIR's printer and LLVM's AsmWriter try first; returns whether it reads
/// back as exactly `v` (they keep it then).
bool formatFloatSixDigits(double v, llvm::SmallVectorImpl<char> &out);

/// The same text by APFloat, as MLIR computes it (tests and the fallback).
void formatMLIRFloatSlow(double v, llvm::SmallVectorImpl<char> &out);

} // namespace q2

#endif // Q2_SUPPORT_FLOATFORMAT_H
