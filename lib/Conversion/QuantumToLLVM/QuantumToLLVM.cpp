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
    llvm_unreachable("unknown runtime function");
  }
  Type ptr, i64, i32, f64, voidTy;
};

/// What the patterns share: per function, the two scratch arrays for qubit
/// pointers (sized for the function's widest op by one walk), the address of
/// each of their slots and the constants the lowering uses, all made once in
/// the entry block, so a gate lowers to its stores and one call; per module,
/// the runtime declarations and Pauli-word globals. Everything is found by a
/// map lookup: scanning the entry block (or the module) per lowered op is
/// quadratic on large programs.
class LoweringState {
public:
  explicit LoweringState(MLIRContext *ctx) : abi(ctx) {}

  /// Declares runtime function `name` on first use.
  LLVM::LLVMFuncOp runtimeFunction(ConversionPatternRewriter &rewriter,
                                   Operation *op, StringRef name) {
    Operation *&fn = symbols[name];
    if (!fn) {
      auto module = op->getParentOfType<ModuleOp>();
      fn = module.lookupSymbol(name);
      if (!fn) {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(module.getBody());
        fn = LLVM::LLVMFuncOp::create(rewriter, module.getLoc(), name,
                                      abi.type(name));
      }
    }
    return cast<LLVM::LLVMFuncOp>(fn);
  }

  Value call(ConversionPatternRewriter &rewriter, Operation *op,
             StringRef name, ValueRange args) {
    auto c = LLVM::CallOp::create(rewriter, op->getLoc(),
                                  runtimeFunction(rewriter, op, name), args);
    return c.getNumResults() ? c.getResult() : Value();
  }

  /// A private constant holding the word's letters (no terminator: the
  /// length is passed explicitly).
  Value wordPointer(ConversionPatternRewriter &rewriter, Operation *op,
                    StringRef word) {
    std::string name = ("__q2_pauli_" + word).str();
    Operation *&global = symbols[name];
    if (!global) {
      auto module = op->getParentOfType<ModuleOp>();
      global = module.lookupSymbol(name);
      if (!global) {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(module.getBody());
        auto ty = LLVM::LLVMArrayType::get(rewriter.getI8Type(), word.size());
        global = LLVM::GlobalOp::create(rewriter, module.getLoc(), ty,
                                        /*isConstant=*/true,
                                        LLVM::Linkage::Private, name,
                                        rewriter.getStringAttr(word));
      }
    }
    return LLVM::AddressOfOp::create(rewriter, op->getLoc(),
                                     cast<LLVM::GlobalOp>(global));
  }

  /// A constant in the entry block of `op`'s function, made once.
  Value constant(ConversionPatternRewriter &rewriter, Operation *op, Type type,
                 Attribute value) {
    FunctionState &f = function(rewriter, op);
    Value &c = f.constants[{type, value}];
    if (!c)
      c = atEntry(rewriter, f, [&](Location loc) {
        return LLVM::ConstantOp::create(rewriter, loc, type, value);
      });
    return c;
  }
  Value i64(ConversionPatternRewriter &r, Operation *op, int64_t v) {
    return constant(r, op, r.getI64Type(), r.getI64IntegerAttr(v));
  }
  Value i32(ConversionPatternRewriter &r, Operation *op, int32_t v) {
    return constant(r, op, r.getI32Type(), r.getI32IntegerAttr(v));
  }

  /// Stores qubit pointers into the targets (or controls) array of `op`'s
  /// function; returns (array, count).
  std::pair<Value, Value> fill(ConversionPatternRewriter &rewriter,
                               Operation *op, bool ctrls, ValueRange qubits) {
    FunctionState &f = function(rewriter, op);
    Value array = ctrls ? f.ctrls : f.targets;
    SmallVector<Value> &slots = ctrls ? f.ctrlSlots : f.targetSlots;
    while (slots.size() < qubits.size()) {
      int32_t k = slots.size();
      slots.push_back(k == 0 ? array : atEntry(rewriter, f, [&](Location loc) {
        return LLVM::GEPOp::create(rewriter, loc, abi.ptr, abi.ptr, array,
                                   ArrayRef<LLVM::GEPArg>{k});
      }));
    }
    for (auto [q, slot] : llvm::zip(qubits, slots))
      LLVM::StoreOp::create(rewriter, op->getLoc(), q, slot);
    return {array, i64(rewriter, op, qubits.size())};
  }

  RuntimeABI abi;

private:
  struct FunctionState {
    Value targets, ctrls;
    SmallVector<Value> targetSlots, ctrlSlots;
    DenseMap<std::pair<Type, Attribute>, Value> constants;
    /// The last op made in the entry block; the next goes after it, so
    /// every op there follows its operands.
    Operation *last = nullptr;
  };

  FunctionState &function(ConversionPatternRewriter &rewriter, Operation *op) {
    auto fn = op->getParentOfType<FunctionOpInterface>();
    auto [it, inserted] = functions.try_emplace(fn.getOperation());
    if (inserted)
      createScratch(rewriter, fn, it->second);
    return it->second;
  }

  template <typename Build>
  Value atEntry(ConversionPatternRewriter &rewriter, FunctionState &f,
                Build build) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointAfter(f.last);
    Value v = build(f.last->getLoc());
    f.last = v.getDefiningOp();
    return v;
  }

  /// One targets array and one controls array per function, sized for its
  /// widest op, in the entry block so loops do not grow the stack.
  void createScratch(ConversionPatternRewriter &rewriter,
                     FunctionOpInterface fn, FunctionState &f) {
    int64_t maxT = 0, maxC = 0;
    fn.walk([&](Operation *op) {
      if (auto g = dyn_cast<QuantumGate>(op)) {
        maxT = std::max<int64_t>(maxT, g.getTargetOperands().size());
        maxC = std::max<int64_t>(maxC, g.getCtrlOperands().size());
      } else if (auto p = dyn_cast<ProbsOp>(op)) {
        maxT = std::max<int64_t>(maxT, p.getNumMeasuredQubits());
      }
    });
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&fn.getFunctionBody().front());
    Location loc = fn.getLoc();
    for (auto [array, n] : {std::pair<Value *, int64_t>{&f.targets, maxT},
                            {&f.ctrls, maxC}}) {
      Value count = LLVM::ConstantOp::create(
          rewriter, loc, rewriter.getI64Type(),
          rewriter.getI64IntegerAttr(std::max<int64_t>(n, 1)));
      *array = LLVM::AllocaOp::create(rewriter, loc, abi.ptr, abi.ptr, count,
                                      /*alignment=*/8);
      f.constants.try_emplace({count.getType(), rewriter.getI64IntegerAttr(
                                                    std::max<int64_t>(n, 1))},
                              count);
    }
    f.last = f.ctrls.getDefiningOp();
  }

  DenseMap<Operation *, FunctionState> functions;
  llvm::StringMap<Operation *> symbols;
};

template <typename OpT>
struct QuantumPattern : OpConversionPattern<OpT> {
  QuantumPattern(const TypeConverter &tc, MLIRContext *ctx,
                 std::shared_ptr<LoweringState> state)
      : OpConversionPattern<OpT>(tc, ctx), state(std::move(state)) {}
  std::shared_ptr<LoweringState> state;
};

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
    Value id = state->i32(rewriter, op, gate->runtimeId);
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
    // Address of element 0: aligned pointer + offset.
    Value buf = adaptor.getStateIn();
    auto meta = memref::ExtractStridedMetadataOp::create(rewriter, loc, buf);
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, buf);
    Value base64 = arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), base);
    Value basePtr = LLVM::IntToPtrOp::create(rewriter, loc, state->abi.ptr, base64);
    Value off64 = arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                             meta.getOffset());
    Value out = LLVM::GEPOp::create(rewriter, loc, state->abi.ptr, rewriter.getF64Type(),
                                    basePtr, ValueRange{off64});
    state->call(rewriter, op, "q2_rt_probs", {array, n, out});
    rewriter.eraseOp(op);
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
               MeasureLowering, ProbsLowering>(converter, ctx, state);
}
