//===- Passes.h - quantum dialect passes ------------------------*- C++ -*-===//
#ifndef Q2_DIALECT_QUANTUM_TRANSFORMS_PASSES_H
#define Q2_DIALECT_QUANTUM_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "q2/Dialect/Quantum/IR/QuantumDialect.h"

namespace q2::quantum {

#define GEN_PASS_DECL
#include "q2/Dialect/Quantum/Transforms/Passes.h.inc"

/// Populates the patterns of quantum-cancel-inverses / -merge-rotations
/// (also used by the QuantumLowering stage).
void populateCancelInversesPatterns(mlir::RewritePatternSet &patterns);
void populateMergeRotationsPatterns(mlir::RewritePatternSet &patterns);

/// BufferizableOpInterface for quantum.probs: the tensor result becomes a
/// fresh buffer filled through the out-buffer form.
void registerBufferizableOpInterfaceExternalModels(
    mlir::DialectRegistry &registry);

#define GEN_PASS_REGISTRATION
#include "q2/Dialect/Quantum/Transforms/Passes.h.inc"

} // namespace q2::quantum

#endif
