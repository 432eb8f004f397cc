//===- QPEToLLVM.cpp - qpe.metadata -> object sections --------------------===//
//
// convert-qpe-to-llvm (Passes.td): the module's qpe.metadata attribute as
// LLVM constants in the sections the host reads (q2/QPE/QPEMetadata.h,
// q2/QPE/ObjectIO.h), at the end of the LLVMDialect stage.
//
//===----------------------------------------------------------------------===//
#include "q2/Conversion/QPEToLLVM/QPEToLLVM.h"

#include "q2/Dialect/QPE/IR/QPEDialect.h"
#include "q2/QPE/ObjectIO.h"

#include "mlir/IR/Builders.h"

namespace q2 {
#define GEN_PASS_DEF_CONVERTQPETOLLVM
#include "q2/Conversion/Passes.h.inc"
} // namespace q2

using namespace mlir;
using namespace q2::qpe;

namespace {
struct ConvertQPEToLLVMPass
    : q2::impl::ConvertQPEToLLVMBase<ConvertQPEToLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto attr = module->getAttrOfType<MetadataAttr>(kMetadataAttrName);
    if (!attr)
      return markAllAnalysesPreserved();
    // The attribute is lowered like the rest of the module: after this pass
    // the metadata lives in the LLVM constant only.
    QPEMetadata md = attr.getMetadata();
    for (const char *symbol : {kObjectSymbol, kObjectIOSymbol, kShapeSymbol})
      if (Operation *clash = module.lookupSymbol(symbol)) {
        clash->emitError() << "'" << symbol << "' is reserved for the lowered '"
                           << kMetadataAttrName << "' attribute";
        return signalPassFailure();
      }
    module->removeAttr(kMetadataAttrName);
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
