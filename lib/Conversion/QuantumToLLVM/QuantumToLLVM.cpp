//===- QuantumToLLVM.cpp - quantum ops -> runtime calls -------------------===//
#include "q2/Conversion/QuantumToLLVM/QuantumToLLVM.h"

#include "LoweringState.h"
#include "q2/Runtime/QuantumRuntime.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/StringSwitch.h"

namespace q2 {
#define GEN_PASS_DEF_CONVERTQUANTUMTOLLVM
#include "q2/Conversion/Passes.h.inc"
} // namespace q2

using namespace mlir;
using namespace q2::quantum;
using namespace q2::quantum_to_llvm;

Value q2::quantum_to_llvm::elementPointer(ConversionPatternRewriter &rewriter,
                                          Location loc, Value buf, Type ptr) {
  Type elem = cast<MemRefType>(buf.getType()).getElementType();
  auto meta = memref::ExtractStridedMetadataOp::create(rewriter, loc, buf);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, buf);
  Value base64 = arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), base);
  Value basePtr = LLVM::IntToPtrOp::create(rewriter, loc, ptr, base64);
  Value off64 = arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                           meta.getOffset());
  return LLVM::GEPOp::create(rewriter, loc, ptr, elem, basePtr, ValueRange{off64});
}

int32_t q2::runtimeGateId(llvm::StringRef name) {
  return llvm::StringSwitch<int32_t>(name)
      .Case("Identity", Q2_GATE_IDENTITY)
      .Case("H", Q2_GATE_H)
      .Case("X", Q2_GATE_X)
      .Case("Y", Q2_GATE_Y)
      .Case("Z", Q2_GATE_Z)
      .Case("S", Q2_GATE_S)
      .Case("T", Q2_GATE_T)
      .Case("RX", Q2_GATE_RX)
      .Case("RY", Q2_GATE_RY)
      .Case("RZ", Q2_GATE_RZ)
      .Case("PhaseShift", Q2_GATE_PHASESHIFT)
      .Case("CNOT", Q2_GATE_CNOT)
      .Case("CZ", Q2_GATE_CZ)
      .Case("SWAP", Q2_GATE_SWAP)
      .Default(-1);
}

namespace {
struct AllocLowering : QuantumPattern<AllocOp> {
  using QuantumPattern::QuantumPattern;
  LogicalResult
  matchAndRewrite(AllocOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    Value n = state->i64(rewriter, op, op.getSize());
    rewriter.replaceOp(op, state->call(rewriter, op, "q2_rt_alloc", n));
    return success();
  }
};

struct DeallocLowering : QuantumPattern<DeallocOp> {
  using QuantumPattern::QuantumPattern;
  LogicalResult
  matchAndRewrite(DeallocOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    state->call(rewriter, op, "q2_rt_dealloc", adaptor.getReg());
    rewriter.eraseOp(op);
    return success();
  }
};

struct ExtractLowering : QuantumPattern<ExtractOp> {
  using QuantumPattern::QuantumPattern;
  LogicalResult
  matchAndRewrite(ExtractOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Value idx = adaptor.getIdx()
                    ? adaptor.getIdx()
                    : state->i64(rewriter, op, int64_t(*op.getIdxAttr()));
    rewriter.replaceOp(op, state->call(rewriter, op, "q2_rt_qubit",
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
    auto [targets, nT] = state->fill(rewriter, op, false, adaptor.getInQubits());
    auto [ctrls, nC] = state->fill(rewriter, op, true, adaptor.getInCtrlQubits());
    Value param = adaptor.getParams().empty()
                      ? state->constant(rewriter, op, rewriter.getF64Type(),
                                        rewriter.getF64FloatAttr(0.0))
                      : adaptor.getParams()[0];
    Value id = state->i32(rewriter, op, q2::runtimeGateId(gate->name));
    Value adj = state->i32(rewriter, op, op.getAdjoint());
    state->call(rewriter, op, "q2_rt_gate", {id, param, targets, nT, ctrls, nC, adj});
    SmallVector<Value> results(adaptor.getInQubits());
    results.append(adaptor.getInCtrlQubits().begin(), adaptor.getInCtrlQubits().end());
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct PauliRotLowering : QuantumPattern<PauliRotOp> {
  using QuantumPattern::QuantumPattern;
  LogicalResult
  matchAndRewrite(PauliRotOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto [targets, nT] = state->fill(rewriter, op, false, adaptor.getInQubits());
    auto [ctrls, nC] = state->fill(rewriter, op, true, adaptor.getInCtrlQubits());
    Value theta = adaptor.getTheta();
    if (op.getAdjoint())
      theta = LLVM::FNegOp::create(rewriter, loc, theta);
    Value word = state->wordPointer(rewriter, op, op.getPauliWord());
    state->call(rewriter, op, "q2_rt_pauli_rot", {theta, word, targets, nT, ctrls, nC});
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
    Value r = state->call(rewriter, op, "q2_rt_measure", adaptor.getInQubit());
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
    SmallVector<Value> qubits(adaptor.getQubits());
    if (adaptor.getReg())
      for (int64_t i = 0; i < op.getNumMeasuredQubits(); ++i)
        qubits.push_back(state->call(
            rewriter, op, "q2_rt_qubit",
            {adaptor.getReg(),
             state->i64(rewriter, op, int64_t(*op.getRegStart()) + i)}));
    auto [array, n] = state->fill(rewriter, op, false, qubits);
    Value out = elementPointer(rewriter, loc, adaptor.getStateIn(), state->abi.ptr);
    state->call(rewriter, op, "q2_rt_probs", {array, n, out});
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
    state->call(rewriter, op, "q2_rt_block_begin", count);
    Block &body = op.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    SmallVector<Value> results(yield.getQubits());
    rewriter.inlineBlockBefore(&body, op, op.getQubits());
    rewriter.eraseOp(yield);
    state->call(rewriter, op, "q2_rt_block_end", {});
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
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();

    TypeConverter converter;
    converter.addConversion([](Type t) { return t; });
    q2::populateQuantumToLLVMTypeConversions(converter);
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
    q2::populateQuantumToLLVMConversionPatterns(converter, patterns);
    patterns.add<ConvertBlockArgTypes>(converter, ctx);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns, converter);
    populateCallOpTypeConversionPattern(patterns, converter);
    populateBranchOpInterfaceTypeConversionPattern(patterns, converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void q2::populateQuantumToLLVMTypeConversions(TypeConverter &converter) {
  converter.addConversion([](RegType t) {
    return LLVM::LLVMPointerType::get(t.getContext());
  });
  converter.addConversion([](BitType t) {
    return LLVM::LLVMPointerType::get(t.getContext());
  });
}

void q2::populateQuantumToLLVMConversionPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  auto state = std::make_shared<LoweringState>(ctx);
  patterns.add<AllocLowering, DeallocLowering, ExtractLowering,
               InsertLowering, CustomLowering, PauliRotLowering,
               MeasureLowering, ProbsLowering, PowerLowering>(converter, ctx,
                                                              state);
  populateGateTableLowering(converter, patterns, state);
}

