//===- QPEAttr.cpp - The quantum.qpe attribute <-> QPEMetadata ------------===//
#include "q2/QPE/QPEProgram.h"

#include "q2/Dialect/Quantum/IR/QuantumOps.h"
#include "ObjectIO.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace q2::qpe;
using q2::quantum::QPEAttr;
namespace quantum = q2::quantum;

QPEMetadata q2::qpe::fromAttr(QPEAttr a) {
  QPEMetadata md;
  md.molecule = a.getMolecule().str();
  md.nSystem = unsigned(a.getNSystem());
  md.nEst = unsigned(a.getNEst());
  md.nTrotter = unsigned(a.getNTrotter());
  md.nTerms = unsigned(a.getNTerms());
  md.order = unsigned(a.getOrder());
  md.mode = parseMode(a.getMode()).value_or(Mode::Dynamic);
  md.power = parsePower(a.getPower()).value_or(Power::Time);
  md.unroll = a.getUnroll();
  md.baseTime = a.getBaseTime().convertToDouble();
  md.energyShift = a.getEnergyShift().convertToDouble();
  md.resolution = a.getResolution().convertToDouble();
  for (Attribute w : a.getWords())
    if (auto s = dyn_cast<StringAttr>(w))
      md.words.push_back(s.str());
  if (a.getDefaultCoeffs())
    md.defaultCoeffs.assign(a.getDefaultCoeffs().asArrayRef().begin(),
                            a.getDefaultCoeffs().asArrayRef().end());
  if (a.getTrotterSteps())
    for (int64_t n : a.getTrotterSteps().asArrayRef())
      md.trotterSteps.push_back(uint64_t(n));
  auto opt = [](const llvm::APFloat &v) -> std::optional<double> {
    if (v.isNaN())
      return std::nullopt;
    return v.convertToDouble();
  };
  md.trotterBound = opt(a.getTrotterBound());
  md.exactEnergy = opt(a.getExactEnergy());
  md.hfEnergy = opt(a.getHfEnergy());
  return md;
}

QPEAttr q2::qpe::toAttr(MLIRContext *ctx, const QPEMetadata &md) {
  Builder b(ctx);
  SmallVector<Attribute> words;
  for (const std::string &w : md.words)
    words.push_back(b.getStringAttr(w));
  // Unset values take the attribute's defaults (not printed).
  auto opt = [](const std::optional<double> &v) {
    return v ? llvm::APFloat(*v)
             : llvm::APFloat::getQNaN(llvm::APFloat::IEEEdouble());
  };
  DenseI64ArrayAttr steps;
  if (!md.trotterSteps.empty()) {
    SmallVector<int64_t> s(md.trotterSteps.begin(), md.trotterSteps.end());
    steps = b.getDenseI64ArrayAttr(s);
  }
  return QPEAttr::get(ctx, md.molecule, md.nSystem, md.nEst, md.nTrotter,
                      md.nTerms, md.order, toString(md.mode),
                      toString(md.power), md.unroll, llvm::APFloat(md.baseTime),
                      llvm::APFloat(md.energyShift),
                      llvm::APFloat(md.resolution), b.getArrayAttr(words),
                      b.getDenseF64ArrayAttr(md.defaultCoeffs), steps,
                      opt(md.trotterBound), opt(md.exactEnergy),
                      opt(md.hfEnergy));
}

llvm::Expected<QPEMetadata> q2::qpe::readQPEMetadata(ModuleOp module) {
  Attribute a = module->getAttr(quantum::kQPEAttrName);
  if (!a)
    return llvm::createStringError(
        llvm::Twine("not a QPE program: the module has no '") +
        quantum::kQPEAttrName + "' attribute (generate it with q2-qpe)");
  auto attr = dyn_cast<QPEAttr>(a);
  if (!attr)
    return llvm::createStringError(llvm::Twine("'") + quantum::kQPEAttrName +
                                   "' is not a #quantum.qpe<...> attribute");
  return fromAttr(attr);
}

namespace {
struct EmbedQPEMetadataPass
    : PassWrapper<EmbedQPEMetadataPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(EmbedQPEMetadataPass)
  llvm::StringRef getArgument() const override {
    return "q2-embed-qpe-metadata";
  }
  llvm::StringRef getDescription() const override {
    return "Lower the quantum.qpe module attribute to an LLVM constant in "
           "section .q2.qpe, so the object file says how to run it";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<LLVM::LLVMDialect>();
  }
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto attr = module->getAttrOfType<QPEAttr>(quantum::kQPEAttrName);
    if (!attr)
      return markAllAnalysesPreserved();
    // The attribute is lowered like the rest of the module: after this pass
    // the metadata lives in the LLVM constant only.
    module->removeAttr(quantum::kQPEAttrName);
    if (module.lookupSymbol(kObjectSymbol))
      return;
    QPEMetadata md = fromAttr(attr);
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
