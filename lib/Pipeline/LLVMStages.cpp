//===- LLVMStages.cpp - Stages 5 (LLVM IR) and 6 (object code) ------------===//
//
// Plain functions: stage 5 translates the LLVM-dialect module to an
// llvm::Module and optimizes it with the new pass manager at -O<n>; stage 6
// emits a relocatable ELF object for the host with a TargetMachine.
//
//===----------------------------------------------------------------------===//
#include "q2/Pipeline/Pipeline.h"

#include "q2/Support/NativeTarget.h"
#include "q2/Support/ObjectDigest.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;
using namespace q2::pipeline;

namespace {
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

/// Brackets a step for the caller's observer; the end carries the product.
struct Step {
  Step(StepCallback cb, llvm::StringRef name) : cb(cb), name(name) {
    if (cb)
      cb(StepEvent{name, true, nullptr, {}});
  }
  ~Step() {
    if (cb)
      cb(StepEvent{name, false, module, object});
  }
  StepCallback cb;
  llvm::StringRef name;
  const llvm::Module *module = nullptr;
  llvm::ArrayRef<char> object;
};
} // namespace

llvm::Expected<std::unique_ptr<llvm::Module>>
q2::pipeline::translateToLLVMIR(ModuleOp module, llvm::LLVMContext &ctx,
                                const PipelineOptions &opts,
                                StepCallback onStep) {
  auto tm = q2::createHostTargetMachine(opts.optLevel);
  if (!tm)
    return llvm::createStringError("cannot create the host target machine: " +
                                   llvm::toString(tm.takeError()));
  std::unique_ptr<llvm::Module> m;
  {
    Step step(onStep, "llvm-translate");
    registerBuiltinDialectTranslation(*module.getContext());
    registerLLVMDialectTranslation(*module.getContext());
    // Translation reports why it failed through the context's diagnostics.
    std::string diags;
    llvm::raw_string_ostream os(diags);
    ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &d) {
      os << (diags.empty() ? "" : "; ") << d;
      return success();
    });
    m = translateModuleToLLVMIR(module, ctx, "qpe");
    if (!m)
      return llvm::createStringError(
          "translation to LLVM IR failed (is everything in the llvm "
          "dialect? run LLVMDialect first)" +
          (diags.empty() ? std::string() : ": " + diags));
    step.module = m.get();
  }
  m->setDataLayout((*tm)->createDataLayout());
  m->setTargetTriple((*tm)->getTargetTriple());

  Step step(onStep, "llvm-optimize");
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  // The module is glue around runtime calls: its only vectorizable loops
  // scale the coefficients once per call, so the vectorizers and the
  // unroller buy no run time and cost ~15 ms of LLVMIR + ObjectCode as
  // soon as those loops are long (docs/pipeline.md, "Time per term").
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = false;
  pto.SLPVectorization = false;
  pto.LoopUnrolling = false;
  llvm::PassBuilder pb(tm->get(), pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm =
      opts.optLevel == 0
          ? pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
          : pb.buildPerModuleDefaultPipeline(toLevel(opts.optLevel));
  mpm.run(*m, mam);
  step.module = m.get();
  std::string err;
  llvm::raw_string_ostream os(err);
  if (llvm::verifyModule(*m, &os))
    return llvm::createStringError("LLVM IR does not verify: " + err);
  return std::move(m);
}

llvm::Expected<llvm::SmallVector<char, 0>>
q2::pipeline::emitObject(llvm::Module &module, const PipelineOptions &opts,
                         StepCallback onStep) {
  Step step(onStep, "llvm-codegen");
  auto tm = q2::createHostTargetMachine(opts.optLevel);
  if (!tm)
    return llvm::createStringError("cannot create the host target machine: " +
                                   llvm::toString(tm.takeError()));
  // Room for the digest (zeros until sealObject fills it in); external
  // linkage keeps it (nothing references it).
  auto *digestTy = llvm::ArrayType::get(llvm::Type::getInt8Ty(module.getContext()),
                                        q2::kDigestSize);
  llvm::GlobalVariable *digest = module.getGlobalVariable(q2::kDigestSymbol);
  if (!digest)
    digest = new llvm::GlobalVariable(
        module, digestTy, /*isConstant=*/true,
        llvm::GlobalValue::ExternalLinkage,
        llvm::ConstantAggregateZero::get(digestTy), q2::kDigestSymbol);
  if (digest->getValueType() != digestTy)
    return llvm::createStringError(llvm::Twine("the module defines '") +
                                   q2::kDigestSymbol +
                                   "', which q2-opt reserves for the digest");
  digest->setSection(q2::kDigestSection);
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager pm;
  if ((*tm)->addPassesToEmitFile(pm, os, nullptr,
                                 llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("the host target cannot emit object files");
  pm.run(module);
  if (llvm::Error e = q2::sealObject(object))
    return std::move(e);
  step.object = object;
  return std::move(object);
}
