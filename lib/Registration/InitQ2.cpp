//===- InitQ2.cpp - dialect and pass registration -------------------------===//
#include "q2/InitQ2.h"

#include "q2/Conversion/QuantumToLLVM/QuantumToLLVM.h"
#include "q2/Dialect/Quantum/IR/QuantumDialect.h"
#include "q2/Pipeline/Passes.h"
#include "q2/Dialect/Quantum/Transforms/Passes.h"

// The conversion passes one by one: mlir/Conversion/Passes.h declares all
// ~100 of them with their dialects and made this the slowest file to compile
// (docs/building.md).
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/TensorToLinalg/TensorToLinalgPass.h"
#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToSCF/TosaToSCF.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
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
  // Upstream conversion passes, registered as mlir/Conversion/Passes.h's
  // register*Pass() functions do (the pass's own argument and options).
#define Q2_ADD_PASS(create)                                                    \
  registerPass([]() -> std::unique_ptr<Pass> { return create(); })
  // Stage 1: HLOLowering.
  Q2_ADD_PASS(tosa::createTosaToLinalg);
  Q2_ADD_PASS(tosa::createTosaToLinalgNamed);
  Q2_ADD_PASS(createTosaToArithPass);
  Q2_ADD_PASS(createTosaToTensorPass);
  Q2_ADD_PASS(createTosaToSCFPass);
  registerLinalgPasses();
  arith::registerArithPasses();
  // Stage 3: Bufferization.
  bufferization::registerBufferizationPasses();
  memref::registerMemRefPasses();
  registerSCFPasses();
  // Stage 4: LLVMDialect.
  Q2_ADD_PASS(createSCFToControlFlowPass);
  Q2_ADD_PASS(createArithToLLVMConversionPass);
  Q2_ADD_PASS(createConvertFuncToLLVMPass);
  Q2_ADD_PASS(createConvertMathToLLVMPass);
  Q2_ADD_PASS(createConvertControlFlowToLLVMPass);
  Q2_ADD_PASS(createConvertIndexToLLVMPass);
  Q2_ADD_PASS(createFinalizeMemRefToLLVMConversionPass);
  Q2_ADD_PASS(createReconcileUnrealizedCastsPass);
  Q2_ADD_PASS(createUBToLLVMConversionPass);
  Q2_ADD_PASS(createConvertBufferizationToMemRefPass);
  Q2_ADD_PASS(createConvertTensorToLinalgPass);

#undef Q2_ADD_PASS
  registerQ2PassesOnce();
}
