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

def ConvertQPEToLLVM : Pass<"convert-qpe-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower the qpe.metadata module attribute into the object";
  let description = [{
    The `qpe.metadata` module attribute (`#qpe.metadata<...>`) becomes LLVM
    constants, so the object file says how to run it: the metadata as JSON
    (schema `q2.qpe/2`) in section `.q2.qpe`, the entry point's buffer
    sizes as text in `.q2.qpe.io`, and the same sizes as code
    (`__q2_qpe_shape`), which the host checks against the two sections
    before calling. The attribute is removed (after this pass the metadata
    lives in the constants only). A module without the attribute is left
    alone; one that already defines one of the three symbols is an error.
    The end of the LLVMDialect stage.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif
