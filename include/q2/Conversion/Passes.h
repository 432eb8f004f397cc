//===- Passes.h - Every q2 conversion pass ----------------------*- C++ -*-===//
//
// The conversions of Passes.td (one library each, lib/Conversion/XToY) and
// their registration, as mlir/Conversion/Passes.h does upstream.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_CONVERSION_PASSES_H
#define Q2_CONVERSION_PASSES_H

#include "q2/Conversion/QPEToLLVM/QPEToLLVM.h"
#include "q2/Conversion/QuantumToLLVM/QuantumToLLVM.h"

namespace q2 {
#define GEN_PASS_REGISTRATION
#include "q2/Conversion/Passes.h.inc"
} // namespace q2

#endif // Q2_CONVERSION_PASSES_H
