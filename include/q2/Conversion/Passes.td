//===- Passes.td - q2 conversion passes --------------------*- tablegen -*-===//
#ifndef Q2_CONVERSION_PASSES
#define Q2_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertQuantumToLLVM : Pass<"convert-quantum-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower quantum ops to calls into the runtime C ABI";
  let description = [{
    Quantum ops become calls into the runtime (include/q2/Runtime/
    QuantumRuntime.h); `!quantum.reg` and `!quantum.bit` become `!llvm.ptr`,
    also in block arguments, branches and function signatures, so run it
    after `convert-scf-to-cf`. Other dialects are left to the upstream
    `convert-*-to-llvm` passes. Qubit arrays passed to the runtime live in
    one scratch alloca per function (entry block), so loops do not grow the
    stack; Pauli words are private string constants.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif
