//===- OutlineChunks.cpp - long gate runs -> private functions ------------===//
//
// One Trotter step of a large Hamiltonian is one straight-line block of tens
// of thousands of gates; LLVM's code generation is superlinear in the size of
// a function, so the block is cut into functions of at most K gates (and,
// if there are still more than K calls, the calls are grouped again).
// Everything here is linear in the block per level: each op is looked at a
// bounded number of times, values and ops are found through maps.
//
//===----------------------------------------------------------------------===//
#include "q2/Dialect/Quantum/IR/QuantumOps.h"
#include "q2/Dialect/Quantum/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace q2::quantum {
#define GEN_PASS_DEF_QUANTUMOUTLINECHUNKS
#include "q2/Dialect/Quantum/Transforms/Passes.h.inc"
} // namespace q2::quantum

using namespace mlir;
using namespace q2::quantum;

namespace {
/// Pure ops cloned into a chunk per gate of the chunk, at most: bounds the
/// total cloned work by a constant times the number of gates even when many
/// chunks share one long pure computation (beyond it, values are passed).
constexpr int64_t kClonesPerGate = 8;

bool hasQuantumType(Operation *op) {
  auto isQuantum = [](Type t) { return isa<BitType, RegType>(t); };
  return llvm::any_of(op->getOperandTypes(), isQuantum) ||
         llvm::any_of(op->getResultTypes(), isQuantum);
}

class Outliner {
public:
  Outliner(func::FuncOp parent, SymbolTable &symbols, unsigned maxGates)
      : parent(parent), symbols(symbols), maxGates(maxGates),
        insertAfter(parent) {}

  /// Outlines `block` level by level until at most maxGates units are left
  /// or nothing can be grouped.
  void run(Block &block) {
    for (;;) {
      int64_t units = 0;
      for (Operation &op : block)
        units += isUnit(&op);
      if (units <= int64_t(maxGates))
        return;
      bool progress = false;
      for (SmallVector<Operation *> &run : runs(block)) {
        int64_t n = (int64_t(run.size()) + maxGates - 1) / maxGates;
        // Balanced: sizes differ by at most one.
        for (int64_t i = 0, begin = 0; i < n; ++i) {
          int64_t size = int64_t(run.size()) / n + (i < int64_t(run.size()) % n);
          if (size >= 2) {
            outline(block, ArrayRef(run).slice(begin, size));
            progress = true;
          }
          begin += size;
        }
      }
      if (!progress)
        return;
    }
  }

  /// Erases the originals of cloned ops that have no users left.
  void eraseDeadSources() {
    SmallVector<Operation *> worklist(cloneSources.begin(), cloneSources.end());
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      if (!cloneSources.contains(op) || !op->use_empty())
        continue;
      cloneSources.remove(op);
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp(); def && cloneSources.contains(def))
          worklist.push_back(def);
      op->erase();
    }
  }

private:
  bool isUnit(Operation *op) const {
    return isa<QuantumGate>(op) || calls.contains(op);
  }

  /// Maximal runs of units in block order; a run ends before an op that
  /// uses one of its results, has regions or may have memory effects.
  SmallVector<SmallVector<Operation *>> runs(Block &block) {
    SmallVector<SmallVector<Operation *>> out(1);
    DenseSet<Operation *> current;
    auto close = [&] {
      if (!out.back().empty())
        out.emplace_back();
      current.clear();
    };
    for (Operation &op : block) {
      if (isUnit(&op)) {
        out.back().push_back(&op);
        current.insert(&op);
        continue;
      }
      if (out.back().empty())
        continue;
      bool closes = op.getNumRegions() != 0 || !isMemoryEffectFree(&op) ||
                    llvm::any_of(op.getOperands(), [&](Value v) {
                      return current.contains(v.getDefiningOp());
                    });
      if (closes)
        close();
    }
    if (out.back().empty())
      out.pop_back();
    return out;
  }

  /// Can `op` be recomputed inside a chunk of `block`?
  static bool cloneable(Operation *op, Block &block) {
    return op->getBlock() == &block && op->getNumRegions() == 0 &&
           isMemoryEffectFree(op) && !hasQuantumType(op);
  }

  /// Replaces `members` (consecutive units of `block`, in order) by a call
  /// to a new private function holding them.
  void outline(Block &block, ArrayRef<Operation *> members) {
    MLIRContext *ctx = parent.getContext();
    DenseSet<Operation *> memberSet(members.begin(), members.end());
    Location loc = members.front()->getLoc();
    // The function (its type is set once the arguments are known), after
    // the parent's previous chunks.
    OpBuilder mb(ctx);
    auto fn = func::FuncOp::create(
        mb, loc, (parent.getName() + ".chunk" + llvm::Twine(counter++)).str(),
        FunctionType::get(ctx, {}, {}));
    Block *body = new Block();
    fn.getBody().push_back(body);
    OpBuilder b = OpBuilder::atBlockEnd(body);
    IRMapping map;
    SmallVector<Value> args;
    int64_t budget = kClonesPerGate * int64_t(members.size());

    auto clone = [&](Operation *op) {
      b.clone(*op, map);
      cloneSources.insert(op);
    };
    // The value of `root` inside the chunk: cloned (with what it needs,
    // depth first without recursion) or a new argument.
    auto materialize = [&](Value root) {
      SmallVector<std::pair<Value, bool>> stack{{root, false}};
      while (!stack.empty()) {
        auto [v, expanded] = stack.back();
        if (map.contains(v)) {
          stack.pop_back();
          continue;
        }
        Operation *def = v.getDefiningOp();
        if (def && def->hasTrait<OpTrait::ConstantLike>()) {
          clone(def);
          stack.pop_back();
        } else if (def && !memberSet.contains(def) && cloneable(def, block) &&
                   (expanded || budget > 0)) {
          if (expanded) {
            clone(def);
            stack.pop_back();
            continue;
          }
          --budget;
          stack.back().second = true;
          // Reversed: the first operand is handled first (arguments in
          // order of first use).
          for (Value operand : llvm::reverse(def->getOperands()))
            if (!map.contains(operand))
              stack.push_back({operand, false});
        } else {
          map.map(v, body->addArgument(v.getType(), v.getLoc()));
          args.push_back(v);
          stack.pop_back();
        }
      }
    };

    for (Operation *op : members) {
      for (Value v : op->getOperands())
        materialize(v);
      b.clone(*op, map);
    }
    SmallVector<Value> results, returned;
    for (Operation *op : members)
      for (Value r : op->getResults())
        if (llvm::any_of(r.getUsers(), [&](Operation *user) {
              return !memberSet.contains(user);
            })) {
          results.push_back(r);
          returned.push_back(map.lookup(r));
        }
    func::ReturnOp::create(b, loc, returned);
    fn.setType(FunctionType::get(ctx, body->getArgumentTypes(),
                                 ValueRange(returned).getTypes()));
    fn.setPrivate();
    // Both are read by convert-func-to-llvm: internal linkage keeps the
    // chunks out of the object's symbol table, and `passthrough` becomes
    // LLVM's `noinline` (a `no_inline` on func.func is dropped there).
    fn->setAttr("llvm.linkage",
                LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
    fn->setAttr("passthrough",
                ArrayAttr::get(ctx, {StringAttr::get(ctx, "noinline")}));
    symbols.insert(fn, std::next(Block::iterator(insertAfter)));
    insertAfter = fn;

    // The call where the last member was: every argument is defined before
    // it, every outside user of a result after it (runs() ends a run
    // before such a user).
    OpBuilder cb(members.back());
    auto call = func::CallOp::create(cb, loc, fn, args);
    for (auto [r, c] : llvm::zip(results, call.getResults()))
      r.replaceAllUsesWith(c);
    for (Operation *op : llvm::reverse(members)) {
      calls.erase(op);
      op->erase();
    }
    calls.insert(call);
  }

  func::FuncOp parent;
  SymbolTable &symbols;
  unsigned maxGates;
  Operation *insertAfter;
  unsigned counter = 0;
  /// Calls made by this outliner: units of the next level.
  DenseSet<Operation *> calls;
  /// Ops that were cloned into a chunk; erased at the end if unused.
  llvm::SetVector<Operation *> cloneSources;
};

struct OutlineChunksPass
    : q2::quantum::impl::QuantumOutlineChunksBase<OutlineChunksPass> {
  using Base::Base;
  void runOnOperation() override {
    if (maxGates == 0)
      return markAllAnalysesPreserved();
    ModuleOp module = getOperation();
    if (maxGates == 1) {
      module.emitError("quantum-outline-chunks: max-gates must be 0 (off) "
                       "or at least 2, got 1");
      return signalPassFailure();
    }
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
    for (func::FuncOp fn : functions) {
      if (fn.isExternal())
        continue;
      SmallVector<Block *> blocks;
      fn.walk([&](Block *block) { blocks.push_back(block); });
      Outliner outliner(fn, symbols, maxGates);
      for (Block *block : blocks)
        outliner.run(*block);
      outliner.eraseDeadSources();
    }
  }
};
} // namespace
