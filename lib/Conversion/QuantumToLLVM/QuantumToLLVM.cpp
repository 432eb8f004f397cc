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

#include <cmath>

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
    if (name == "q2_rt_block_begin")
      return fn(voidTy, {i64});
    if (name == "q2_rt_block_end")
      return fn(voidTy, {});
    if (name == "q2_rt_param_out_of_range")
      return fn(voidTy, {i64, i64});
    llvm_unreachable("unknown runtime function");
  }
  Type ptr, i64, i32, f64, voidTy;
};

/// The scratch arrays of a function: qubit pointers passed to the runtime
/// as targets and as controls, and, for gate tables, the handles of the
/// table's wires.
enum class Scratch { Targets, Ctrls, Handles };
constexpr unsigned kNumScratch = 3;

/// What the patterns share: per function, the scratch arrays (sized for the
/// function's widest op by one walk), the address of each of their slots and
/// the constants the lowering uses, all made once in the entry block, so a
/// gate lowers to its stores and one call; per module, the symbols (runtime
/// declarations, Pauli words, gate tables). Everything is found by a map
/// lookup: scanning the entry block (or the module) per lowered op is
/// quadratic on large programs.
class LoweringState {
public:
  explicit LoweringState(MLIRContext *ctx) : abi(ctx) {}

  /// Declares runtime function `name` on first use.
  LLVM::LLVMFuncOp runtimeFunction(ConversionPatternRewriter &rewriter,
                                   Operation *op, StringRef name) {
    Operation *fn = symbol(op, name);
    if (!fn)
      fn = addSymbol(rewriter, op, [&](Location loc) {
        return LLVM::LLVMFuncOp::create(rewriter, loc, name, abi.type(name));
      });
    return cast<LLVM::LLVMFuncOp>(fn);
  }

  Value call(ConversionPatternRewriter &rewriter, Operation *op,
             StringRef name, ValueRange args) {
    auto c = LLVM::CallOp::create(rewriter, op->getLoc(),
                                  runtimeFunction(rewriter, op, name), args);
    return c.getNumResults() ? c.getResult() : Value();
  }

  /// The module's `__q2_pauli_rot_ladder`, made on first use: a Pauli
  /// rotation with q2_rt_pauli_rot's signature, executed as the gates
  /// quantum-decompose-pauli-rot makes of a pauli_rot op (basis change, CNOT
  /// ladder over the non-I letters, RZ with the controls, then undone), so a
  /// table of `pauli_rot_ladder` records runs the decomposed circuit.
  LLVM::LLVMFuncOp ladderFunction(ConversionPatternRewriter &rewriter,
                                  Operation *op);

  /// A private constant holding the word's letters (no terminator: the
  /// length is passed explicitly).
  Value wordPointer(ConversionPatternRewriter &rewriter, Operation *op,
                    StringRef word) {
    std::string name = ("__q2_pauli_" + word).str();
    Operation *global = symbol(op, name);
    if (!global)
      global = addSymbol(rewriter, op, [&](Location loc) {
        auto ty = LLVM::LLVMArrayType::get(rewriter.getI8Type(), word.size());
        return LLVM::GlobalOp::create(rewriter, loc, ty, /*isConstant=*/true,
                                      LLVM::Linkage::Private, name,
                                      rewriter.getStringAttr(word));
      });
    return LLVM::AddressOfOp::create(rewriter, op->getLoc(),
                                     cast<LLVM::GlobalOp>(global));
  }

  /// The address of a new private constant `prefix_N` holding `value`.
  Value constantGlobal(ConversionPatternRewriter &rewriter, Operation *op,
                       StringRef prefix, Type type, Attribute value) {
    std::string name;
    do
      name = (prefix + "_" + Twine(numGlobals++)).str();
    while (symbol(op, name));
    auto global = cast<LLVM::GlobalOp>(addSymbol(rewriter, op, [&](Location loc) {
      return LLVM::GlobalOp::create(rewriter, loc, type, /*isConstant=*/true,
                                    LLVM::Linkage::Private, name, value);
    }));
    return LLVM::AddressOfOp::create(rewriter, op->getLoc(), global);
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
  Value f64(ConversionPatternRewriter &r, Operation *op, double v) {
    return constant(r, op, r.getF64Type(), r.getF64FloatAttr(v));
  }

  /// Scratch array `which` of `op`'s function.
  Value array(ConversionPatternRewriter &rewriter, Operation *op,
              Scratch which) {
    return function(rewriter, op).arrays[unsigned(which)];
  }

  /// Stores `values` into scratch array `which` of `op`'s function; returns
  /// (array, count).
  std::pair<Value, Value> fill(ConversionPatternRewriter &rewriter,
                               Operation *op, Scratch which,
                               ValueRange values) {
    FunctionState &f = function(rewriter, op);
    Value array = f.arrays[unsigned(which)];
    SmallVector<Value> &slots = f.slots[unsigned(which)];
    while (slots.size() < values.size()) {
      int32_t k = slots.size();
      slots.push_back(k == 0 ? array : atEntry(rewriter, f, [&](Location loc) {
        return LLVM::GEPOp::create(rewriter, loc, abi.ptr, abi.ptr, array,
                                   ArrayRef<LLVM::GEPArg>{k});
      }));
    }
    for (auto [v, slot] : llvm::zip(values, slots))
      LLVM::StoreOp::create(rewriter, op->getLoc(), v, slot);
    return {array, i64(rewriter, op, values.size())};
  }
  std::pair<Value, Value> fill(ConversionPatternRewriter &rewriter,
                               Operation *op, bool ctrls, ValueRange qubits) {
    return fill(rewriter, op, ctrls ? Scratch::Ctrls : Scratch::Targets,
                qubits);
  }

  RuntimeABI abi;

private:
  struct FunctionState {
    Value arrays[kNumScratch];
    SmallVector<Value> slots[kNumScratch];
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

  /// The module's symbols, read once (then kept up to date by addSymbol).
  Operation *symbol(Operation *op, StringRef name) {
    if (!module) {
      module = op->getParentOfType<ModuleOp>();
      for (Operation &o : *module.getBody())
        if (auto sym = o.getAttrOfType<StringAttr>(
                SymbolTable::getSymbolAttrName()))
          symbols[sym.getValue()] = &o;
    }
    return symbols.lookup(name);
  }
  template <typename Build>
  Operation *addSymbol(ConversionPatternRewriter &rewriter, Operation *op,
                       Build build) {
    (void)symbol(op, "");
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(module.getBody());
    Operation *s = build(module.getLoc());
    symbols[cast<SymbolOpInterface>(s).getName()] = s;
    return s;
  }

  /// The scratch arrays, in the entry block so loops do not grow the stack,
  /// each sized for the function's widest op (targets and controls always
  /// exist; the others only for functions with gate tables).
  void createScratch(ConversionPatternRewriter &rewriter,
                     FunctionOpInterface fn, FunctionState &f) {
    int64_t size[kNumScratch] = {1, 1, 0};
    auto grow = [&](Scratch s, int64_t n) {
      size[unsigned(s)] = std::max(size[unsigned(s)], n);
    };
    fn.walk([&](Operation *op) {
      if (auto g = dyn_cast<QuantumGate>(op)) {
        grow(Scratch::Targets, g.getTargetOperands().size());
        grow(Scratch::Ctrls, g.getCtrlOperands().size());
      } else if (auto p = dyn_cast<ProbsOp>(op)) {
        grow(Scratch::Targets, p.getNumMeasuredQubits());
      } else if (auto t = dyn_cast<GateTableOp>(op)) {
        grow(Scratch::Handles, t.getInQubits().size());
        t.forEachRecord([&](const GateTableOp::Record &r) {
          grow(Scratch::Targets, r.numTargets);
          grow(Scratch::Ctrls, r.numCtrls);
        });
      }
    });
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&fn.getFunctionBody().front());
    Location loc = fn.getLoc();
    for (unsigned i = 0; i < kNumScratch; ++i) {
      if (size[i] == 0)
        continue;
      auto n = rewriter.getI64IntegerAttr(size[i]);
      Value count = f.constants[{rewriter.getI64Type(), n}];
      if (!count)
        count = f.constants[{rewriter.getI64Type(), n}] =
            LLVM::ConstantOp::create(rewriter, loc, rewriter.getI64Type(), n);
      f.arrays[i] = LLVM::AllocaOp::create(rewriter, loc, abi.ptr, abi.ptr,
                                           count, /*alignment=*/8);
      f.last = f.arrays[i].getDefiningOp();
    }
  }

  DenseMap<Operation *, FunctionState> functions;
  ModuleOp module;
  llvm::StringMap<Operation *> symbols;
  unsigned numGlobals = 0;
};

LLVM::LLVMFuncOp
LoweringState::ladderFunction(ConversionPatternRewriter &rewriter,
                              Operation *op) {
  static constexpr StringLiteral kName = "__q2_pauli_rot_ladder";
  if (Operation *fn = symbol(op, kName))
    return cast<LLVM::LLVMFuncOp>(fn);
  LLVM::LLVMFuncOp gateFn = runtimeFunction(rewriter, op, "q2_rt_gate");
  auto fn = cast<LLVM::LLVMFuncOp>(addSymbol(rewriter, op, [&](Location loc) {
    auto f = LLVM::LLVMFuncOp::create(rewriter, loc, kName,
                                      abi.type("q2_rt_pauli_rot"));
    f.setLinkage(LLVM::Linkage::Private);
    return f;
  }));
  OpBuilder::InsertionGuard guard(rewriter);
  Location loc = fn.getLoc();
  Type i8 = rewriter.getI8Type(), i32 = rewriter.getI32Type(),
       i64 = rewriter.getI64Type(), f64 = rewriter.getF64Type(),
       ptr = abi.ptr;
  Block *entry = fn.addEntryBlock(rewriter);
  Value theta = entry->getArgument(0), word = entry->getArgument(1),
        t = entry->getArgument(2), nT = entry->getArgument(3),
        c = entry->getArgument(4), nC = entry->getArgument(5);
  Region &body = fn.getBody();
  auto block = [&](TypeRange args) {
    return rewriter.createBlock(&body, body.end(), args,
                                SmallVector<Location>(args.size(), loc));
  };
  auto cst = [&](Type ty, Attribute a) -> Value {
    return LLVM::ConstantOp::create(rewriter, loc, ty, a);
  };
  rewriter.setInsertionPointToEnd(entry);
  Value zero = cst(i64, rewriter.getI64IntegerAttr(0));
  Value one = cst(i64, rewriter.getI64IntegerAttr(1));
  Value minus1 = cst(i64, rewriter.getI64IntegerAttr(-1));
  Value zeroF = cst(f64, rewriter.getF64FloatAttr(0.0));
  Value noAdj = cst(i32, rewriter.getI32IntegerAttr(0));
  auto id = [&](StringRef name) {
    return cst(i32, rewriter.getI32IntegerAttr(lookupGate(name)->runtimeId));
  };
  Value idH = id("H"), idRX = id("RX"), idX = id("X"), idRZ = id("RZ"),
        idPhase = id("PhaseShift");
  auto letter = [&](char ch) {
    return cst(i8, rewriter.getI8IntegerAttr(ch));
  };
  Value chI = letter('I'), chX = letter('X'), chY = letter('Y');
  Value halfPi = cst(f64, rewriter.getF64FloatAttr(M_PI / 2));
  Value minusHalfPi = cst(f64, rewriter.getF64FloatAttr(-M_PI / 2));
  auto gep = [&](Type elem, Value base, Value index) -> Value {
    return LLVM::GEPOp::create(rewriter, loc, ptr, elem, base,
                               ValueRange{index});
  };
  auto gate = [&](Value gid, Value param, Value tgt, Value ctl, Value nCtl) {
    LLVM::CallOp::create(rewriter, loc, gateFn,
                         ValueRange{gid, param, tgt, one, ctl, nCtl, noAdj});
  };
  auto cmp = [&](LLVM::ICmpPredicate p, Value a, Value b) -> Value {
    return LLVM::ICmpOp::create(rewriter, loc, p, a, b);
  };
  using P = LLVM::ICmpPredicate;

  // for i in [0, nT): X -> H, Y -> RX(angle) on target i; then `to`.
  auto basis = [&](Block *from, Value angle, Block *to) {
    Block *head = block(i64), *loopBody = block({}), *isY = block({}),
          *doX = block({}), *doY = block({}), *next = block({});
    rewriter.setInsertionPointToEnd(from);
    LLVM::BrOp::create(rewriter, loc, ValueRange{zero}, head);
    rewriter.setInsertionPointToEnd(head);
    Value i = head->getArgument(0);
    LLVM::CondBrOp::create(rewriter, loc, cmp(P::slt, i, nT), loopBody, to);
    rewriter.setInsertionPointToEnd(loopBody);
    Value l = LLVM::LoadOp::create(rewriter, loc, i8, gep(i8, word, i));
    LLVM::CondBrOp::create(rewriter, loc, cmp(P::eq, l, chX), doX, isY);
    rewriter.setInsertionPointToEnd(isY);
    LLVM::CondBrOp::create(rewriter, loc, cmp(P::eq, l, chY), doY, next);
    rewriter.setInsertionPointToEnd(doX);
    gate(idH, zeroF, gep(ptr, t, i), c, zero);
    LLVM::BrOp::create(rewriter, loc, ValueRange{}, next);
    rewriter.setInsertionPointToEnd(doY);
    gate(idRX, angle, gep(ptr, t, i), c, zero);
    LLVM::BrOp::create(rewriter, loc, ValueRange{}, next);
    rewriter.setInsertionPointToEnd(next);
    Value i1 = LLVM::AddOp::create(rewriter, loc, i, one);
    LLVM::BrOp::create(rewriter, loc, ValueRange{i1}, head);
  };
  // The CNOT ladder over the non-I letters, up (a_k -> a_k+1 for rising k)
  // or down (the same CNOTs in reverse); `to` gets the last non-I letter
  // seen (-1 if none).
  auto ladder = [&](Block *from, bool up, Block *to) {
    Block *head = block({i64, i64}), *loopBody = block({}),
          *active = block({}), *doCnot = block({}), *next = block(i64);
    rewriter.setInsertionPointToEnd(from);
    Value start =
        up ? zero : Value(LLVM::SubOp::create(rewriter, loc, nT, one));
    LLVM::BrOp::create(rewriter, loc, ValueRange{start, minus1}, head);
    rewriter.setInsertionPointToEnd(head);
    Value i = head->getArgument(0), prev = head->getArgument(1);
    Value more = up ? cmp(P::slt, i, nT) : cmp(P::sge, i, zero);
    LLVM::CondBrOp::create(rewriter, loc, more, loopBody, ValueRange{}, to,
                           ValueRange{prev});
    rewriter.setInsertionPointToEnd(loopBody);
    Value l = LLVM::LoadOp::create(rewriter, loc, i8, gep(i8, word, i));
    LLVM::CondBrOp::create(rewriter, loc, cmp(P::ne, l, chI), active,
                           ValueRange{}, next, ValueRange{prev});
    rewriter.setInsertionPointToEnd(active);
    LLVM::CondBrOp::create(rewriter, loc, cmp(P::sge, prev, zero), doCnot,
                           ValueRange{}, next, ValueRange{i});
    rewriter.setInsertionPointToEnd(doCnot);
    // Up: control prev (the lower letter), target i; down: control i,
    // target prev (the higher one).
    Value ctl = up ? prev : i, tgt = up ? i : prev;
    gate(idX, zeroF, gep(ptr, t, tgt), gep(ptr, t, ctl), one);
    LLVM::BrOp::create(rewriter, loc, ValueRange{i}, next);
    rewriter.setInsertionPointToEnd(next);
    Value step = up ? Value(LLVM::AddOp::create(rewriter, loc, i, one))
                    : Value(LLVM::SubOp::create(rewriter, loc, i, one));
    LLVM::BrOp::create(rewriter, loc, ValueRange{step, next->getArgument(0)},
                       head);
  };

  Block *afterBasis = block({}), *rz = block(i64), *noLetters = block({}),
        *phase = block({}), *down = block({}), *undo = block(i64),
        *ret = block({});
  basis(entry, halfPi, afterBasis);
  ladder(afterBasis, /*up=*/true, rz);
  rewriter.setInsertionPointToEnd(rz);
  Value last = rz->getArgument(0);
  Block *doRz = block({});
  rewriter.setInsertionPointToEnd(rz);
  LLVM::CondBrOp::create(rewriter, loc, cmp(P::sge, last, zero), doRz,
                         noLetters);
  // exp(-iθ/2 I): PhaseShift(-θ/2) on the last control, controlled by the
  // rest (nothing without controls).
  rewriter.setInsertionPointToEnd(noLetters);
  LLVM::CondBrOp::create(rewriter, loc, cmp(P::sgt, nC, zero), phase, ret);
  rewriter.setInsertionPointToEnd(phase);
  Value half = LLVM::FMulOp::create(rewriter, loc, theta,
                                    cst(f64, rewriter.getF64FloatAttr(-0.5)));
  Value nRest = LLVM::SubOp::create(rewriter, loc, nC, one);
  gate(idPhase, half, gep(ptr, c, nRest), c, nRest);
  LLVM::BrOp::create(rewriter, loc, ValueRange{}, ret);
  rewriter.setInsertionPointToEnd(doRz);
  gate(idRZ, theta, gep(ptr, t, last), c, nC);
  LLVM::BrOp::create(rewriter, loc, ValueRange{}, down);
  ladder(down, /*up=*/false, undo);
  basis(undo, minusHalfPi, ret);
  rewriter.setInsertionPointToEnd(ret);
  LLVM::ReturnOp::create(rewriter, loc, ValueRange{});
  return fn;
}

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

/// The address of element 0 of a memref: aligned pointer + offset.
Value elementPointer(ConversionPatternRewriter &rewriter, Location loc,
                     Value buf, Type ptr) {
  Type elem = cast<MemRefType>(buf.getType()).getElementType();
  auto meta = memref::ExtractStridedMetadataOp::create(rewriter, loc, buf);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, buf);
  Value base64 = arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), base);
  Value basePtr = LLVM::IntToPtrOp::create(rewriter, loc, ptr, base64);
  Value off64 = arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                           meta.getOffset());
  return LLVM::GEPOp::create(rewriter, loc, ptr, elem, basePtr, ValueRange{off64});
}

/// A gate table becomes one loop over a constant copy of its records (each
/// kind replaced by the runtime gate id, -1 for a Pauli rotation, -2 for
/// one executed decomposed by __q2_pauli_rot_ladder): per
/// record, the handles of its wires are copied from the handles array into
/// the targets/controls arrays and one runtime call is made. The code is
/// the same for any number of gates; the table is data.
struct GateTableLowering : QuantumPattern<GateTableOp> {
  using QuantumPattern::QuantumPattern;
  /// Record kinds of the lowered table that are not runtime gate ids.
  static constexpr int32_t kNativeId = -1, kLadderId = -2;
  LogicalResult
  matchAndRewrite(GateTableOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i8 = rewriter.getI8Type(), i32 = rewriter.getI32Type(),
         i64 = rewriter.getI64Type(), f64 = rewriter.getF64Type(),
         ptr = state->abi.ptr;
    SmallVector<int32_t> ids;
    for (Attribute a : op.getKinds()) {
      StringRef kind = cast<StringAttr>(a).getValue();
      ids.push_back(kind == GateTableOp::kPauliRot         ? kNativeId
                    : kind == GateTableOp::kPauliRotLadder ? kLadderId
                                                           : lookupGate(kind)->runtimeId);
    }
    SmallVector<int32_t> data(op.getRecords());
    bool hasPauli = false, hasGate = false, hasNative = false, hasLadder = false;
    for (size_t pos = 0; pos < data.size(); pos += 6 + data[pos + 3] + data[pos + 4]) {
      data[pos] = ids[data[pos]];
      (data[pos] < 0 ? hasPauli : hasGate) = true;
      (data[pos] == kNativeId ? hasNative : hasLadder) |= data[pos] < 0;
    }
    if (data.empty()) {
      rewriter.replaceOp(op, adaptor.getInQubits());
      return success();
    }

    auto gep = [&](Type elem, Value base, LLVM::GEPArg index) -> Value {
      return LLVM::GEPOp::create(rewriter, loc, ptr, elem, base,
                                 ArrayRef<LLVM::GEPArg>{index});
    };
    auto load = [&](Type type, Value base, LLVM::GEPArg index) -> Value {
      return LLVM::LoadOp::create(rewriter, loc, type, gep(type, base, index));
    };

    // Entry-block values and globals first, then the loop.
    Value targets = state->array(rewriter, op, Scratch::Targets);
    Value ctrls = state->array(rewriter, op, Scratch::Ctrls);
    auto [handles, nH] = state->fill(rewriter, op, Scratch::Handles, adaptor.getInQubits());
    Value params;
    // With params of unknown size the verifier cannot check the indices:
    // the largest is compared with the size once, before the loop, and the
    // table is not run (a runtime error) when it is out of range.
    Value numParams;
    int64_t maxParam = -1;
    if (Value p = adaptor.getParams()) {
      auto type = dyn_cast<MemRefType>(p.getType());
      if (!type)
        return rewriter.notifyMatchFailure(
            op, "quantum.gate_table must be bufferized (memref params) first");
      op.forEachRecord([&](const GateTableOp::Record &r) {
        maxParam = std::max<int64_t>(maxParam, r.param);
      });
      // No record reads a parameter: nothing is loaded (the array may be
      // empty).
      if (maxParam >= 0)
        params = elementPointer(rewriter, loc, p, ptr);
      if (type.isDynamicDim(0) && maxParam >= 0)
        numParams = arith::IndexCastOp::create(
            rewriter, loc, i64, memref::DimOp::create(rewriter, loc, p, 0));
    }
    Value zero = state->i32(rewriter, op, 0), one = state->i32(rewriter, op, 1);
    Value zeroF = state->f64(rewriter, op, 0.0);
    auto tableTy = RankedTensorType::get({int64_t(data.size())}, i32);
    Value table = state->constantGlobal(
        rewriter, op, "__q2_gates", LLVM::LLVMArrayType::get(i32, data.size()),
        DenseElementsAttr::get(tableTy, ArrayRef<int32_t>(data)));
    Value words;
    if (hasPauli)
      words = state->constantGlobal(
          rewriter, op, "__q2_words",
          LLVM::LLVMArrayType::get(i8, op.getWords().size()), op.getWordsAttr());
    Value end = gep(i32, table, int32_t(data.size()));

    Block *before = rewriter.getInsertionBlock();
    Block *exit = rewriter.splitBlock(before, rewriter.getInsertionPoint());
    auto block = [&](TypeRange args) {
      return rewriter.createBlock(exit, args, SmallVector<Location>(args.size(), loc));
    };
    Block *header = block(ptr), *body = block({}), *tLoop = block(i32),
          *tBody = block({}), *cLoop = block(i32), *cBody = block({}),
          *dispatch = block({}), *next = block({});
    Block *gateBlock = hasPauli && hasGate ? block({}) : nullptr;
    Block *pauliBlock = gateBlock ? block({}) : nullptr;
    if (numParams) {
      Block *outOfRange = block({});
      rewriter.setInsertionPointToEnd(before);
      Value max = LLVM::ConstantOp::create(rewriter, loc, i64,
                                           rewriter.getI64IntegerAttr(maxParam));
      Value ok = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::slt,
                                      max, numParams);
      LLVM::CondBrOp::create(rewriter, loc, ok, header, ValueRange{table},
                             outOfRange, ValueRange{});
      rewriter.setInsertionPointToEnd(outOfRange);
      state->call(rewriter, op, "q2_rt_param_out_of_range", {max, numParams});
      LLVM::BrOp::create(rewriter, loc, ValueRange{}, exit);
    } else {
      rewriter.setInsertionPointToEnd(before);
      LLVM::BrOp::create(rewriter, loc, ValueRange{table}, header);
    }

    // header(rec): done when rec reaches the end of the table.
    rewriter.setInsertionPointToEnd(header);
    Value rec = header->getArgument(0);
    Value done = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, rec, end);
    LLVM::CondBrOp::create(rewriter, loc, done, exit, body);

    // body: the record's fields.
    rewriter.setInsertionPointToEnd(body);
    Value kind = load(i32, rec, 0), adj = load(i32, rec, 1);
    Value paramIdx = load(i32, rec, 2), nT = load(i32, rec, 3),
          nC = load(i32, rec, 4), wordOff = load(i32, rec, 5);
    Value tWires = gep(i32, rec, 6);
    Value cWires = gep(i32, tWires, nT);
    LLVM::BrOp::create(rewriter, loc, ValueRange{zero}, tLoop);

    // Copies the handles of `count` wires into `array`, then goes to `to`.
    auto gather = [&](Block *loop, Block *loopBody, Value count, Value wires,
                      Value array, Block *to) {
      rewriter.setInsertionPointToEnd(loop);
      Value k = loop->getArgument(0);
      Value more = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::slt, k, count);
      LLVM::CondBrOp::create(rewriter, loc, more, loopBody, ValueRange{}, to,
                             to == cLoop ? ValueRange{zero} : ValueRange{});
      rewriter.setInsertionPointToEnd(loopBody);
      Value wire = load(i32, wires, k);
      LLVM::StoreOp::create(rewriter, loc, load(ptr, handles, wire), gep(ptr, array, k));
      Value k1 = LLVM::AddOp::create(rewriter, loc, k, one);
      LLVM::BrOp::create(rewriter, loc, ValueRange{k1}, loop);
    };
    gather(tLoop, tBody, nT, tWires, targets, cLoop);
    gather(cLoop, cBody, nC, cWires, ctrls, dispatch);

    // dispatch: the parameter (0.0 without one) and the call.
    rewriter.setInsertionPointToEnd(dispatch);
    Value param = zeroF;
    if (params) {
      Value has = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::sge, paramIdx, zero);
      Value safe = LLVM::SelectOp::create(rewriter, loc, has, paramIdx, zero);
      param = LLVM::SelectOp::create(rewriter, loc, has, load(f64, params, safe), zeroF);
    }
    Value nT64 = LLVM::SExtOp::create(rewriter, loc, i64, nT);
    Value nC64 = LLVM::SExtOp::create(rewriter, loc, i64, nC);
    auto gateCall = [&] {
      state->call(rewriter, op, "q2_rt_gate", {kind, param, targets, nT64, ctrls, nC64, adj});
    };
    auto pauliCall = [&] {
      Value isAdj = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ne, adj, zero);
      Value neg = LLVM::FNegOp::create(rewriter, loc, param);
      Value theta = LLVM::SelectOp::create(rewriter, loc, isAdj, neg, param);
      SmallVector<Value> args{theta, gep(i8, words, wordOff), targets, nT64, ctrls, nC64};
      auto ladderCall = [&] {
        LLVM::CallOp::create(rewriter, loc, state->ladderFunction(rewriter, op), args);
      };
      if (hasNative && hasLadder) {
        // Both kinds in one table (hand-written): pick per record.
        Block *here = rewriter.getInsertionBlock();
        Block *nativeBlock = block({}), *ladderBlock = block({});
        rewriter.setInsertionPointToEnd(here);
        Value isLadder = LLVM::ICmpOp::create(
            rewriter, loc, LLVM::ICmpPredicate::eq, kind,
            state->i32(rewriter, op, kLadderId));
        LLVM::CondBrOp::create(rewriter, loc, isLadder, ladderBlock, nativeBlock);
        rewriter.setInsertionPointToEnd(ladderBlock);
        ladderCall();
        LLVM::BrOp::create(rewriter, loc, ValueRange{}, next);
        rewriter.setInsertionPointToEnd(nativeBlock);
        state->call(rewriter, op, "q2_rt_pauli_rot", args);
      } else if (hasLadder) {
        ladderCall();
      } else {
        state->call(rewriter, op, "q2_rt_pauli_rot", args);
      }
    };
    if (gateBlock) {
      Value isPauli = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::slt, kind, zero);
      LLVM::CondBrOp::create(rewriter, loc, isPauli, pauliBlock, gateBlock);
      rewriter.setInsertionPointToEnd(gateBlock);
      gateCall();
      LLVM::BrOp::create(rewriter, loc, ValueRange{}, next);
      rewriter.setInsertionPointToEnd(pauliBlock);
      pauliCall();
    } else if (hasPauli) {
      pauliCall();
    } else {
      gateCall();
    }
    LLVM::BrOp::create(rewriter, loc, ValueRange{}, next);

    // next: the following record.
    rewriter.setInsertionPointToEnd(next);
    LLVM::BrOp::create(rewriter, loc, ValueRange{gep(i32, cWires, nC)}, header);

    rewriter.setInsertionPointToStart(exit);
    rewriter.replaceOp(op, adaptor.getInQubits());
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
               MeasureLowering, ProbsLowering, GateTableLowering, PowerLowering>(
      converter, ctx, state);
}
