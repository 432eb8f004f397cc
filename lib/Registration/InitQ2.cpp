//===- InitQ2.cpp - dialect and pass registration -------------------------===//
#include "q2/InitQ2.h"

#include "q2/Conversion/QuantumToLLVM/QuantumToLLVM.h"
#include "q2/Dialect/Quantum/IR/QuantumDialect.h"
#include "q2/Pipeline/Passes.h"
#include "q2/QPE/QPEProgram.h"
#include "q2/Dialect/Quantum/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

void q2::registerQ2Dialects(mlir::DialectRegistry &registry) {
  using namespace mlir;
  registry.insert<func::FuncDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect, cf::ControlFlowDialect,
                  tensor::TensorDialect, linalg::LinalgDialect,
                  tosa::TosaDialect, memref::MemRefDialect,
                  bufferization::BufferizationDialect, LLVM::LLVMDialect>();
  registerQuantumDialect(registry);

  func::registerInlinerExtension(registry);
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  cf::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}

void q2::registerQ2Passes() {
  using namespace mlir;
  // Generic transforms: canonicalize, cse, inline, symbol-dce, ...
  registerTransformsPasses();
  // Stage 1: HLOLowering.
  registerTosaToLinalg();
  registerTosaToLinalgNamed();
  registerTosaToArithPass();
  registerTosaToTensorPass();
  registerTosaToSCFPass();
  registerLinalgPasses();
  arith::registerArithPasses();
  // Stage 3: Bufferization.
  bufferization::registerBufferizationPasses();
  memref::registerMemRefPasses();
  registerSCFPasses();
  // Stage 4: LLVMDialect.
  registerSCFToControlFlowPass();
  registerArithToLLVMConversionPass();
  registerConvertFuncToLLVMPass();
  registerConvertMathToLLVMPass();
  registerConvertControlFlowToLLVMPass();
  registerConvertIndexToLLVMPass();
  registerFinalizeMemRefToLLVMConversionPass();
  registerReconcileUnrealizedCastsPass();
  registerUBToLLVMConversionPass();
  registerConvertBufferizationToMemRefPass();
  registerConvertTensorToLinalgPass();

  registerQ2PassesOnce();
}
