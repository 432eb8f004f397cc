//===- LoweringState.h - shared state of the quantum -> LLVM patterns -----===//
//
// Private to lib/Conversion/QuantumToLLVM: the runtime ABI, the per-function
// scratch arrays and constants, the module's symbols, and the base of every
// pattern. QuantumToLLVM.cpp holds the op patterns and the pass,
// GateTableLowering.cpp the gate-table loop, PauliRotLadder.cpp the
// `__q2_pauli_rot_ladder` helper it calls.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_LIB_CONVERSION_QUANTUMTOLLVM_LOWERINGSTATE_H
#define Q2_LIB_CONVERSION_QUANTUMTOLLVM_LOWERINGSTATE_H

#include "q2/Conversion/QuantumToLLVM/QuantumToLLVM.h"
#include "q2/Dialect/Quantum/IR/GateTable.h"
#include "q2/Dialect/Quantum/IR/QuantumOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/StringMap.h"

#include <memory>

namespace q2::quantum_to_llvm {
using namespace mlir;
using namespace q2::quantum;

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

  /// The back edge of a loop the lowering emits (table walk, wire gathers,
  /// ladder letters): every iteration makes runtime calls, so LLVM's
  /// vectorizer and unroller only add compile time (LiH 2e3o: +20 ms in
  /// LLVMIR/ObjectCode without this). `llvm.loop.disable_nonforced`.
  static void markPlainLoop(LLVM::BrOp latch) {
    MLIRContext *ctx = latch.getContext();
    latch.setLoopAnnotationAttr(LLVM::LoopAnnotationAttr::get(
        ctx, BoolAttr::get(ctx, true), {}, {}, {}, {}, {}, {}, {}, {}, {}, {},
        {}, {}, {}, {}));
  }

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

template <typename OpT>
struct QuantumPattern : OpConversionPattern<OpT> {
  QuantumPattern(const TypeConverter &tc, MLIRContext *ctx,
                 std::shared_ptr<LoweringState> state)
      : OpConversionPattern<OpT>(tc, ctx), state(std::move(state)) {}
  std::shared_ptr<LoweringState> state;
};

/// The address of element 0 of a memref: aligned pointer + offset.
Value elementPointer(ConversionPatternRewriter &rewriter, Location loc,
                     Value buf, Type ptr);

/// Adds the quantum.gate_table pattern (GateTableLowering.cpp).
void populateGateTableLowering(const TypeConverter &converter,
                               RewritePatternSet &patterns,
                               std::shared_ptr<LoweringState> state);

} // namespace q2::quantum_to_llvm

#endif // Q2_LIB_CONVERSION_QUANTUMTOLLVM_LOWERINGSTATE_H
