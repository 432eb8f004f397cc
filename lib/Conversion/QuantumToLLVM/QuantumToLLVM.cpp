//===- QuantumToLLVM.cpp - quantum ops -> runtime calls -------------------===//
#include "q2/Conversion/QuantumToLLVM/QuantumToLLVM.h"

#include "q2/Dialect/Quantum/IR/GateTable.h"
#include "q2/Dialect/Quantum/IR/QuantumOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/DialectConversion.h"

namespace q2 {
#define GEN_PASS_DEF_CONVERTQUANTUMTOLLVM
#include "q2/Conversion/Passes.h.inc"
} // namespace q2

using namespace mlir;
using namespace q2::quantum;

namespace {
constexpr StringLiteral kScratchAttr = "q2.scratch";

/// The runtime ABI as LLVM function types; one place that must match
/// q2/Runtime/QuantumRuntime.h.
struct RuntimeABI {
  explicit RuntimeABI(MLIRContext *ctx)
      : ptr(LLVM::LLVMPointerType::get(ctx)), i64(IntegerType::get(ctx, 64)),
        i32(IntegerType::get(ctx, 32)), f64(Float64Type::get(ctx)),
        voidTy(LLVM::LLVMVoidType::get(ctx)) {}
  LLVM::LLVMFunctionType type(StringRef name) const {
    auto fn = [](Type r, ArrayRef<Type> a) {
      return LLVM::LLVMFunctionType::get(r, a);
    };
    if (name == "q2_rt_alloc")
      return fn(ptr, {i64});
    if (name == "q2_rt_dealloc")
      return fn(voidTy, {ptr});
    if (name == "q2_rt_qubit")
      return fn(ptr, {ptr, i64});
    if (name == "q2_rt_gate")
      return fn(voidTy, {i32, f64, ptr, i64, ptr, i64, i32});
    if (name == "q2_rt_pauli_rot")
      return fn(voidTy, {f64, ptr, ptr, i64, ptr, i64});
    if (name == "q2_rt_measure")
      return fn(i32, {ptr});
    if (name == "q2_rt_probs")
      return fn(voidTy, {ptr, i64, ptr});
    if (name == "q2_rt_block_begin")
      return fn(voidTy, {i64});
    if (name == "q2_rt_block_end")
      return fn(voidTy, {});
    llvm_unreachable("unknown runtime function");
  }
  Type ptr, i64, i32, f64, voidTy;
};

/// Declares `name` in the module on first use.
LLVM::LLVMFuncOp getOrDeclare(ConversionPatternRewriter &rewriter,
                              Operation *op, StringRef name,
                              const RuntimeABI &abi) {
  auto module = op->getParentOfType<ModuleOp>();
  if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return fn;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(module.getBody());
  return LLVM::LLVMFuncOp::create(rewriter, module.getLoc(), name,
                                  abi.type(name));
}

Value call(ConversionPatternRewriter &rewriter, Operation *op, StringRef name,
           const RuntimeABI &abi, ValueRange args) {
  LLVM::LLVMFuncOp fn = getOrDeclare(rewriter, op, name, abi);
  auto c = LLVM::CallOp::create(rewriter, op->getLoc(), fn, args);
  return c.getNumResults() ? c.getResult() : Value();
}

/// The per-function scratch arrays created before the conversion.
std::pair<Value, Value> getScratch(Operation *op) {
  Value targets, ctrls;
  auto fn = op->getParentOfType<FunctionOpInterface>();
  for (Operation &o : fn.getFunctionBody().front())
    if (auto kind = o.getAttrOfType<StringAttr>(kScratchAttr))
      (kind.getValue() == "targets" ? targets : ctrls) = o.getResult(0);
  return {targets, ctrls};
}

Value constI64(ConversionPatternRewriter &r, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(r, loc, r.getI64Type(), r.getI64IntegerAttr(v));
}

/// Stores qubit pointers into a scratch array; returns (array, count).
std::pair<Value, Value> fillArray(ConversionPatternRewriter &rewriter,
                                  Location loc, Value array, ValueRange qubits,
                                  const RuntimeABI &abi) {
  for (auto [i, q] : llvm::enumerate(qubits)) {
    Value slot = LLVM::GEPOp::create(rewriter, loc, abi.ptr, abi.ptr, array,
                                     ArrayRef<LLVM::GEPArg>{int32_t(i)});
    LLVM::StoreOp::create(rewriter, loc, q, slot);
  }
  return {array, constI64(rewriter, loc, qubits.size())};
}

template <typename OpT>
struct QuantumPattern : OpConversionPattern<OpT> {
  QuantumPattern(const TypeConverter &tc, MLIRContext *ctx)
      : OpConversionPattern<OpT>(tc, ctx), abi(ctx) {}
  RuntimeABI abi;
};

struct AllocLowering : QuantumPattern<AllocOp> {
  using QuantumPattern::QuantumPattern;
  LogicalResult
  matchAndRewrite(AllocOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    Value n = constI64(rewriter, op.getLoc(), op.getSize());
    rewriter.replaceOp(op, call(rewriter, op, "q2_rt_alloc", abi, n));
    return success();
  }
};

struct DeallocLowering : QuantumPattern<DeallocOp> {
  using QuantumPattern::QuantumPattern;
  LogicalResult
  matchAndRewrite(DeallocOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    call(rewriter, op, "q2_rt_dealloc", abi, adaptor.getReg());
    rewriter.eraseOp(op);
    return success();
  }
};

template <typename OpT, typename AdaptorT>
Value indexOperand(OpT op, AdaptorT adaptor, ConversionPatternRewriter &r) {
  if (adaptor.getIdx())
    return adaptor.getIdx();
  return constI64(r, op.getLoc(), static_cast<int64_t>(*op.getIdxAttr()));
}

struct ExtractLowering : QuantumPattern<ExtractOp> {
  using QuantumPattern::QuantumPattern;
  LogicalResult
  matchAndRewrite(ExtractOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Value idx = indexOperand(op, adaptor, rewriter);
    rewriter.replaceOp(op, call(rewriter, op, "q2_rt_qubit", abi,
                                {adaptor.getReg(), idx}));
    return success();
  }
};

/// Gates act in place: the qubit handle does not change, so insert is the
/// register itself.
struct InsertLowering : QuantumPattern<InsertOp> {
  using QuantumPattern::QuantumPattern;
  LogicalResult
  matchAndRewrite(InsertOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getInReg());
    return success();
  }
};

struct CustomLowering : QuantumPattern<CustomOp> {
  using QuantumPattern::QuantumPattern;
  LogicalResult
  matchAndRewrite(CustomOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    std::optional<GateInfo> gate = lookupGate(op.getGateName());
    if (!gate)
      return rewriter.notifyMatchFailure(op, "unknown gate");
    Location loc = op.getLoc();
    auto [tBuf, cBuf] = getScratch(op);
    auto [targets, nT] = fillArray(rewriter, loc, tBuf, adaptor.getInQubits(), abi);
    auto [ctrls, nC] = fillArray(rewriter, loc, cBuf, adaptor.getInCtrlQubits(), abi);
    Value param = adaptor.getParams().empty()
                      ? LLVM::ConstantOp::create(rewriter, loc, rewriter.getF64Type(),
                                                 rewriter.getF64FloatAttr(0.0))
                            .getResult()
                      : adaptor.getParams()[0];
    Value id = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(),
                                        rewriter.getI32IntegerAttr(gate->runtimeId));
    Value adj = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(),
                                         rewriter.getI32IntegerAttr(op.getAdjoint()));
    call(rewriter, op, "q2_rt_gate", abi, {id, param, targets, nT, ctrls, nC, adj});
    SmallVector<Value> results(adaptor.getInQubits());
    results.append(adaptor.getInCtrlQubits().begin(), adaptor.getInCtrlQubits().end());
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// A private constant holding the word's letters (no terminator: the
/// length is passed explicitly).
Value wordPointer(ConversionPatternRewriter &rewriter, Operation *op,
                  StringRef word) {
  auto module = op->getParentOfType<ModuleOp>();
  std::string name = ("__q2_pauli_" + word).str();
  auto global = module.lookupSymbol<LLVM::GlobalOp>(name);
  if (!global) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(module.getBody());
    auto ty = LLVM::LLVMArrayType::get(rewriter.getI8Type(), word.size());
    global = LLVM::GlobalOp::create(rewriter, module.getLoc(), ty,
                                    /*isConstant=*/true, LLVM::Linkage::Private,
                                    name, rewriter.getStringAttr(word));
  }
  return LLVM::AddressOfOp::create(rewriter, op->getLoc(), global);
}

struct PauliRotLowering : QuantumPattern<PauliRotOp> {
  using QuantumPattern::QuantumPattern;
  LogicalResult
  matchAndRewrite(PauliRotOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto [tBuf, cBuf] = getScratch(op);
    auto [targets, nT] = fillArray(rewriter, loc, tBuf, adaptor.getInQubits(), abi);
    auto [ctrls, nC] = fillArray(rewriter, loc, cBuf, adaptor.getInCtrlQubits(), abi);
    Value theta = adaptor.getTheta();
    if (op.getAdjoint())
      theta = LLVM::FNegOp::create(rewriter, loc, theta);
    Value word = wordPointer(rewriter, op, op.getPauliWord());
    call(rewriter, op, "q2_rt_pauli_rot", abi, {theta, word, targets, nT, ctrls, nC});
    SmallVector<Value> results(adaptor.getInQubits());
    results.append(adaptor.getInCtrlQubits().begin(), adaptor.getInCtrlQubits().end());
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct MeasureLowering : QuantumPattern<MeasureOp> {
  using QuantumPattern::QuantumPattern;
  LogicalResult
  matchAndRewrite(MeasureOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Value r = call(rewriter, op, "q2_rt_measure", abi, adaptor.getInQubit());
    Value bit = LLVM::TruncOp::create(rewriter, op.getLoc(), rewriter.getI1Type(), r);
    rewriter.replaceOp(op, {bit, adaptor.getInQubit()});
    return success();
  }
};

struct ProbsLowering : QuantumPattern<ProbsOp> {
  using QuantumPattern::QuantumPattern;
  LogicalResult
  matchAndRewrite(ProbsOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    if (!op.getStateIn())
      return rewriter.notifyMatchFailure(
          op, "quantum.probs must be bufferized (out-buffer form) first");
    Location loc = op.getLoc();
    auto [tBuf, cBuf] = getScratch(op);
    SmallVector<Value> qubits(adaptor.getQubits());
    if (adaptor.getReg())
      for (int64_t i = 0; i < op.getNumMeasuredQubits(); ++i)
        qubits.push_back(call(rewriter, op, "q2_rt_qubit", abi,
                              {adaptor.getReg(),
                               constI64(rewriter, loc, int64_t(*op.getRegStart()) + i)}));
    auto [array, n] = fillArray(rewriter, loc, tBuf, qubits, abi);
    // Address of element 0: aligned pointer + offset.
    Value buf = adaptor.getStateIn();
    auto meta = memref::ExtractStridedMetadataOp::create(rewriter, loc, buf);
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, buf);
    Value base64 = arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), base);
    Value basePtr = LLVM::IntToPtrOp::create(rewriter, loc, abi.ptr, base64);
    Value off64 = arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                             meta.getOffset());
    Value out = LLVM::GEPOp::create(rewriter, loc, abi.ptr, rewriter.getF64Type(),
                                    basePtr, ValueRange{off64});
    call(rewriter, op, "q2_rt_probs", abi, {array, n, out});
    rewriter.eraseOp(op);
    return success();
  }
};

/// quantum.power: the body once, between q2_rt_block_begin(count) and
/// q2_rt_block_end(); the runtime records the body's gates and applies them
/// count times (docs/execution.md). Qubit handles are stable, so the
/// results are the values the body yields.
struct PowerLowering : QuantumPattern<PowerOp> {
  using QuantumPattern::QuantumPattern;
  LogicalResult
  matchAndRewrite(PowerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value count = arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                             adaptor.getCount());
    call(rewriter, op, "q2_rt_block_begin", abi, count);
    Block &body = op.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    SmallVector<Value> results(yield.getQubits());
    rewriter.inlineBlockBefore(&body, op, op.getQubits());
    rewriter.eraseOp(yield);
    call(rewriter, op, "q2_rt_block_end", abi, {});
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// After scf-to-cf, qubits and registers flow through the arguments of
/// non-entry blocks; convert those block signatures (the function signature
/// itself is handled by the upstream signature pattern).
struct ConvertBlockArgTypes : OpConversionPattern<func::FuncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(func::FuncOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    if (!getTypeConverter()->isSignatureLegal(op.getFunctionType()) ||
        getTypeConverter()->isLegal(&op.getBody()))
      return failure();
    if (failed(rewriter.convertRegionTypes(&op.getBody(), *getTypeConverter())))
      return failure();
    rewriter.modifyOpInPlace(op, [] {});
    return success();
  }
};

struct ConvertQuantumToLLVMPass
    : q2::impl::ConvertQuantumToLLVMBase<ConvertQuantumToLLVMPass> {
  /// One targets array and one controls array per function, sized for its
  /// widest op.
  void createScratch(FunctionOpInterface fn) {
    int64_t maxT = 0, maxC = 0;
    fn.walk([&](Operation *op) {
      if (auto g = dyn_cast<QuantumGate>(op)) {
        maxT = std::max<int64_t>(maxT, g.getTargetOperands().size());
        maxC = std::max<int64_t>(maxC, g.getCtrlOperands().size());
      } else if (auto p = dyn_cast<ProbsOp>(op)) {
        maxT = std::max<int64_t>(maxT, p.getNumMeasuredQubits());
      }
    });
    if (maxT == 0 && maxC == 0)
      return;
    OpBuilder b(fn.getFunctionBody());
    Location loc = fn.getLoc();
    auto ptr = LLVM::LLVMPointerType::get(&getContext());
    for (auto [kind, n] : {std::pair<StringRef, int64_t>{"targets", maxT},
                           {"ctrls", maxC}}) {
      Value count = LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                             b.getI64IntegerAttr(std::max<int64_t>(n, 1)));
      auto a = LLVM::AllocaOp::create(b, loc, ptr, ptr, count, /*alignment=*/8);
      a->setAttr(kScratchAttr, b.getStringAttr(kind));
    }
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    module.walk([&](FunctionOpInterface fn) {
      if (!fn.isExternal())
        createScratch(fn);
    });

    TypeConverter converter;
    converter.addConversion([](Type t) { return t; });
    converter.addConversion([ctx](RegType) { return LLVM::LLVMPointerType::get(ctx); });
    converter.addConversion([ctx](BitType) { return LLVM::LLVMPointerType::get(ctx); });
    auto materialize = [](OpBuilder &b, Type t, ValueRange inputs, Location loc) -> Value {
      return UnrealizedConversionCastOp::create(b, loc, t, inputs).getResult(0);
    };
    converter.addSourceMaterialization(materialize);
    converter.addTargetMaterialization(materialize);

    ConversionTarget target(*ctx);
    target.addIllegalDialect<QuantumDialect>();
    target.addLegalDialect<LLVM::LLVMDialect, arith::ArithDialect,
                           memref::MemRefDialect>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType()) &&
             converter.isLegal(&op.getBody());
    });
    target.addDynamicallyLegalOp<func::ReturnOp, func::CallOp>(
        [&](Operation *op) { return converter.isLegal(op); });
    target.markUnknownOpDynamicallyLegal([&](Operation *op) {
      return isNotBranchOpInterfaceOrReturnLikeOp(op) ||
             isLegalForBranchOpInterfaceTypeConversionPattern(op, converter) ||
             isLegalForReturnOpTypeConversionPattern(op, converter);
    });

    RewritePatternSet patterns(ctx);
    patterns.add<AllocLowering, DeallocLowering, ExtractLowering,
                 InsertLowering, CustomLowering, PauliRotLowering,
                 MeasureLowering, ProbsLowering, PowerLowering,
                 ConvertBlockArgTypes>(converter, ctx);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns, converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateBranchOpInterfaceTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
