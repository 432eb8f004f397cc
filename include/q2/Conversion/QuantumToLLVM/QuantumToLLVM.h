//===- QuantumToLLVM.h - quantum -> runtime calls ---------------*- C++ -*-===//
#ifndef Q2_CONVERSION_QUANTUMTOLLVM_QUANTUMTOLLVM_H
#define Q2_CONVERSION_QUANTUMTOLLVM_QUANTUMTOLLVM_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
class TypeConverter;
} // namespace mlir

namespace q2 {
#define GEN_PASS_DECL_CONVERTQUANTUMTOLLVM
#include "q2/Conversion/Passes.h.inc"

/// `!quantum.reg` and `!quantum.bit` become `!llvm.ptr` (runtime handles).
void populateQuantumToLLVMTypeConversions(mlir::TypeConverter &converter);

/// Patterns lowering quantum ops to runtime calls (include/q2/Runtime/
/// QuantumRuntime.h). Qubit arrays passed to the runtime live in two scratch
/// allocas per function, made in its entry block by the first pattern that
/// needs them in that function, together with the slot addresses and
/// constants the patterns reuse; that per-function state is shared by the
/// patterns of one call, so use one populated set for one conversion.
/// The runtime's id (Q2Gate, q2/Runtime/QuantumRuntime.h) of a gate of the
/// dialect's table (q2/Dialect/Quantum/IR/GateTable.h): the table says what
/// a gate is, the runtime ABI how the runtime numbers it; -1 for a name
/// outside the table.
int32_t runtimeGateId(llvm::StringRef name);

void populateQuantumToLLVMConversionPatterns(
    const mlir::TypeConverter &converter, mlir::RewritePatternSet &patterns);
} // namespace q2

#endif
