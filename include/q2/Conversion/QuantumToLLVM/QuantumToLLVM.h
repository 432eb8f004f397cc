//===- QuantumToLLVM.h - quantum -> runtime calls ---------------*- C++ -*-===//
#ifndef Q2_CONVERSION_QUANTUMTOLLVM_QUANTUMTOLLVM_H
#define Q2_CONVERSION_QUANTUMTOLLVM_QUANTUMTOLLVM_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Pass/Pass.h"

namespace q2 {
#define GEN_PASS_DECL
#include "q2/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "q2/Conversion/Passes.h.inc"
} // namespace q2

#endif
