//===- LLVMStages.cpp - stages 5 (LLVM IR) and 6 (object code) ------------===//
//
// Both are module passes that leave the MLIR module untouched: stage 5
// translates it to an llvm::Module and optimizes it at -O<n>; stage 6 emits a
// relocatable ELF object for the host with a TargetMachine. The driver
// shares one Artifacts between them; run alone (from --pass-pipeline) each
// translates on its own and writes its output file.
//
//===----------------------------------------------------------------------===//
#include "q2/Pipeline/Pipeline.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <mutex>

using namespace mlir;
using namespace q2::pipeline;

namespace {
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createHostTargetMachine(unsigned optLevel) {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  builder->setRelocationModel(llvm::Reloc::PIC_);
  builder->setCodeGenOptLevel(optLevel == 0   ? llvm::CodeGenOptLevel::None
                              : optLevel == 1 ? llvm::CodeGenOptLevel::Less
                              : optLevel == 2 ? llvm::CodeGenOptLevel::Default
                                              : llvm::CodeGenOptLevel::Aggressive);
  return builder->createTargetMachine();
}

llvm::OptimizationLevel toLevel(unsigned n) {
  switch (n) {
  case 0:
    return llvm::OptimizationLevel::O0;
  case 1:
    return llvm::OptimizationLevel::O1;
  case 2:
    return llvm::OptimizationLevel::O2;
  default:
    return llvm::OptimizationLevel::O3;
  }
}

/// Translates `module` into `art` and optimizes it. Errors go to the
/// module's diagnostics.
LogicalResult translateAndOptimize(ModuleOp module, unsigned optLevel,
                                   Artifacts &art) {
  registerBuiltinDialectTranslation(*module.getContext());
  registerLLVMDialectTranslation(*module.getContext());
  auto tm = createHostTargetMachine(optLevel);
  if (!tm)
    return module.emitError("cannot create the host target machine: ")
           << llvm::toString(tm.takeError());
  art.llvmContext = std::make_unique<llvm::LLVMContext>();
  art.llvmModule = translateModuleToLLVMIR(module, *art.llvmContext, "qpe");
  if (!art.llvmModule)
    return module.emitError("translation to LLVM IR failed (is everything in "
                            "the llvm dialect? run LLVMDialect first)");
  art.llvmModule->setDataLayout((*tm)->createDataLayout());
  art.llvmModule->setTargetTriple((*tm)->getTargetTriple());
  art.targetTriple = (*tm)->getTargetTriple().str();

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm->get());
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm =
      optLevel == 0 ? pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
                    : pb.buildPerModuleDefaultPipeline(toLevel(optLevel));
  mpm.run(*art.llvmModule, mam);
  std::string err;
  llvm::raw_string_ostream os(err);
  if (llvm::verifyModule(*art.llvmModule, &os))
    return module.emitError("LLVM IR does not verify: ") << err;
  return success();
}

LogicalResult writeFile(ModuleOp module, llvm::StringRef path,
                        llvm::function_ref<void(llvm::raw_ostream &)> write) {
  if (path.empty())
    return success();
  if (llvm::Error e = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
        write(os);
        return llvm::Error::success();
      }))
    return module.emitError("cannot write '")
           << path << "': " << llvm::toString(std::move(e));
  return success();
}

struct LLVMIRStagePass
    : PassWrapper<LLVMIRStagePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LLVMIRStagePass)
  LLVMIRStagePass(unsigned optLevel, std::shared_ptr<Artifacts> art,
                  std::string output)
      : optLevel(optLevel), art(std::move(art)), output(std::move(output)) {}
  llvm::StringRef getArgument() const override { return "q2-emit-llvmir"; }
  llvm::StringRef getDescription() const override {
    return "Stage 5: translate to LLVM IR and optimize";
  }
  void runOnOperation() override {
    Artifacts local;
    Artifacts &a = art ? *art : local;
    if (failed(translateAndOptimize(getOperation(), optLevel, a)) ||
        failed(writeFile(getOperation(), output, [&](llvm::raw_ostream &os) {
          a.llvmModule->print(os, nullptr);
        })))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
  unsigned optLevel;
  std::shared_ptr<Artifacts> art;
  std::string output;
};

struct ObjectCodeStagePass
    : PassWrapper<ObjectCodeStagePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ObjectCodeStagePass)
  ObjectCodeStagePass(unsigned optLevel, std::shared_ptr<Artifacts> art,
                      std::string output)
      : optLevel(optLevel), art(std::move(art)), output(std::move(output)) {}
  llvm::StringRef getArgument() const override { return "q2-emit-object"; }
  llvm::StringRef getDescription() const override {
    return "Stage 6: emit a relocatable object for the host";
  }
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Artifacts local;
    Artifacts &a = art ? *art : local;
    if (!a.llvmModule &&
        failed(translateAndOptimize(module, optLevel, a)))
      return signalPassFailure();
    auto tm = createHostTargetMachine(optLevel);
    if (!tm) {
      module.emitError("cannot create the host target machine: ")
          << llvm::toString(tm.takeError());
      return signalPassFailure();
    }
    a.object.clear();
    llvm::raw_svector_ostream os(a.object);
    llvm::legacy::PassManager pm;
    if ((*tm)->addPassesToEmitFile(pm, os, nullptr,
                                   llvm::CodeGenFileType::ObjectFile)) {
      module.emitError("the host target cannot emit object files");
      return signalPassFailure();
    }
    pm.run(*a.llvmModule);
    if (failed(writeFile(module, output, [&](llvm::raw_ostream &out) {
          out.write(a.object.data(), a.object.size());
        })))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
  unsigned optLevel;
  std::shared_ptr<Artifacts> art;
  std::string output;
};
} // namespace

std::unique_ptr<Pass>
q2::pipeline::createLLVMIRStagePass(unsigned optLevel,
                                    std::shared_ptr<Artifacts> artifacts,
                                    std::string outputPath) {
  return std::make_unique<LLVMIRStagePass>(optLevel, std::move(artifacts),
                                           std::move(outputPath));
}

std::unique_ptr<Pass>
q2::pipeline::createObjectCodeStagePass(unsigned optLevel,
                                        std::shared_ptr<Artifacts> artifacts,
                                        std::string outputPath) {
  return std::make_unique<ObjectCodeStagePass>(optLevel, std::move(artifacts),
                                               std::move(outputPath));
}
