//===- QPEToLLVM.h - qpe.metadata -> object sections ------------*- C++ -*-===//
#ifndef Q2_CONVERSION_QPETOLLVM_QPETOLLVM_H
#define Q2_CONVERSION_QPETOLLVM_QPETOLLVM_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/Pass.h"

namespace q2 {
#define GEN_PASS_DECL_CONVERTQPETOLLVM
#include "q2/Conversion/Passes.h.inc"
} // namespace q2

#endif
