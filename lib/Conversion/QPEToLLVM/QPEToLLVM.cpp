//===- QPEAttr.cpp - Reading qpe.metadata; embedding it in the object -----===//
#include "q2/ProgramBuilder/QPEProgram.h"

#include "q2/Dialect/QPE/IR/QPEDialect.h"
#include "q2/QPE/ObjectIO.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace q2::qpe;

llvm::Expected<QPEMetadata> q2::qpe::readQPEMetadata(ModuleOp module) {
  Attribute a = module->getAttr(kMetadataAttrName);
  if (!a)
    return llvm::createStringError(
        llvm::Twine("not a QPE program: the module has no '") +
        kMetadataAttrName + "' attribute (generate it with q2-qpe)");
  auto attr = dyn_cast<MetadataAttr>(a);
  if (!attr)
    return llvm::createStringError(llvm::Twine("'") + kMetadataAttrName +
                                   "' is not a #qpe.metadata<...> attribute");
  return attr.getMetadata();
}

namespace {
struct EmbedQPEMetadataPass
    : PassWrapper<EmbedQPEMetadataPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(EmbedQPEMetadataPass)
  llvm::StringRef getArgument() const override {
    return "q2-embed-qpe-metadata";
  }
  llvm::StringRef getDescription() const override {
    return "Lower the qpe.metadata module attribute to an LLVM constant in "
           "section .q2.qpe, so the object file says how to run it";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<LLVM::LLVMDialect>();
  }
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto attr = module->getAttrOfType<MetadataAttr>(kMetadataAttrName);
    if (!attr)
      return markAllAnalysesPreserved();
    // The attribute is lowered like the rest of the module: after this pass
    // the metadata lives in the LLVM constant only.
    QPEMetadata md = attr.getMetadata();
    module->removeAttr(kMetadataAttrName);
    if (module.lookupSymbol(kObjectSymbol))
      return;
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    auto addText = [&](llvm::StringRef symbol, llvm::StringRef section,
                       const std::string &text) {
      auto ty = LLVM::LLVMArrayType::get(b.getI8Type(), text.size());
      // External linkage keeps it through -O2 (nothing references it).
      auto global = LLVM::GlobalOp::create(
          b, module.getLoc(), ty, /*isConstant=*/true, LLVM::Linkage::External,
          symbol, b.getStringAttr(text));
      global.setSection(section);
    };
    addText(kObjectSymbol, kObjectSection, toObjectJSON(md));
    // The metadata was verified against @qpe's signature when the module
    // was parsed, so this states the compiled code's buffers.
    addText(kObjectIOSymbol, kObjectIOSection, ioSignature(md));
    // The same sizes as code (kShapeSymbol): editing the sections above
    // cannot change what the host checks against.
    auto ptr = LLVM::LLVMPointerType::get(b.getContext());
    auto fn = LLVM::LLVMFuncOp::create(
        b, module.getLoc(), kShapeSymbol,
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(b.getContext()),
                                    {ptr}));
    OpBuilder::InsertionGuard guard(b);
    Block *body = fn.addEntryBlock(b);
    b.setInsertionPointToStart(body);
    Location loc = module.getLoc();
    Value out = body->getArgument(0);
    int64_t sizes[2] = {int64_t(md.numCoeffArgs()),
                        int64_t(uint64_t(1) << std::min(md.nEst, 62u))};
    for (int i = 0; i < 2; ++i) {
      Value slot = LLVM::GEPOp::create(b, loc, ptr, b.getI64Type(), out,
                                       ArrayRef<LLVM::GEPArg>{i});
      LLVM::StoreOp::create(
          b, loc, LLVM::ConstantOp::create(b, loc, b.getI64IntegerAttr(sizes[i])),
          slot);
    }
    LLVM::ReturnOp::create(b, loc, ValueRange{});
  }
};
} // namespace

std::unique_ptr<Pass> q2::qpe::createEmbedQPEMetadataPass() {
  return std::make_unique<EmbedQPEMetadataPass>();
}

void q2::qpe::registerQPEPasses() {
  if (!PassInfo::lookup("q2-embed-qpe-metadata"))
    PassRegistration<EmbedQPEMetadataPass>();
}
