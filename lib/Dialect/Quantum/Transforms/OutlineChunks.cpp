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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace q2::quantum {
#define GEN_PASS_DEF_QUANTUMOUTLINECHUNKS
#include "q2/Dialect/Quantum/Transforms/Passes.h.inc"
} // namespace q2::quantum

using namespace mlir;
using namespace q2::quantum;

namespace {
bool hasQuantumType(Operation *op) {
  auto isQuantum = [](Type t) { return isa<BitType, RegType>(t); };
  return llvm::any_of(op->getOperandTypes(), isQuantum) ||
         llvm::any_of(op->getResultTypes(), isQuantum);
}

/// How a chunk of gates becomes one quantum.gate_table: wire w is the w-th
/// qubit the chunk takes from outside (`inputs`), `params` are the outside
/// values of the gates' parameters, `wireOf` maps each qubit value the
/// chunk leaves behind to its wire.
struct TablePlan {
  SmallVector<Value> inputs, params;
  SmallVector<StringRef> kinds;
  std::string words;
  SmallVector<int32_t> records;
  DenseMap<Value, int32_t> wireOf;
};

/// The table of `members` (gates, in order), or nullopt if they do not use
/// their qubits linearly (each value consumed once, only the final value of
/// a wire used after the chunk) or a gate has more than one parameter.
std::optional<TablePlan> planTable(ArrayRef<Operation *> members,
                                   const DenseSet<Operation *> &memberSet) {
  TablePlan p;
  llvm::StringMap<int32_t> kindIndex, wordOffset;
  DenseMap<Value, int32_t> paramIndex;
  DenseSet<Value> inputSet;
  for (Operation *op : members) {
    auto g = dyn_cast<QuantumGate>(op);
    if (!g || g.getGateParams().size() > 1)
      return std::nullopt;
    StringRef kind;
    int32_t word = 0;
    if (auto c = dyn_cast<CustomOp>(op)) {
      kind = c.getGateName();
    } else if (auto r = dyn_cast<PauliRotOp>(op)) {
      kind = GateTableOp::kPauliRot;
      auto [it, inserted] =
          wordOffset.try_emplace(r.getPauliWord(), int32_t(p.words.size()));
      if (inserted)
        p.words += r.getPauliWord();
      word = it->second;
    } else {
      return std::nullopt;
    }
    auto [k, newKind] = kindIndex.try_emplace(kind, int32_t(p.kinds.size()));
    if (newKind)
      p.kinds.push_back(kind);
    int32_t param = -1;
    if (!g.getGateParams().empty()) {
      Value v = g.getGateParams()[0];
      auto [it, inserted] = paramIndex.try_emplace(v, int32_t(p.params.size()));
      if (inserted)
        p.params.push_back(v);
      param = it->second;
    }
    p.records.append({k->second, int32_t(g.isAdjoint()), param,
                      int32_t(g.getTargetOperands().size()),
                      int32_t(g.getCtrlOperands().size()), word});
    SmallVector<int32_t> wires;
    for (Value v : llvm::concat<const Value>(g.getTargetOperands(),
                                             g.getCtrlOperands())) {
      if (auto it = p.wireOf.find(v); it != p.wireOf.end()) {
        wires.push_back(it->second);
        p.wireOf.erase(it);
      } else if (memberSet.contains(v.getDefiningOp()) ||
                 !inputSet.insert(v).second) {
        return std::nullopt; // consumed twice
      } else {
        wires.push_back(int32_t(p.inputs.size()));
        p.inputs.push_back(v);
      }
    }
    p.records.append(wires);
    for (auto [r, w] : llvm::zip(llvm::concat<const Value>(
                                     g.getTargetResults(), g.getCtrlResults()),
                                 wires))
      p.wireOf[r] = w;
  }
  // What is used after the chunk must be the final value of its wire.
  for (Operation *op : members)
    for (Value r : op->getResults())
      if (!p.wireOf.contains(r) &&
          llvm::any_of(r.getUsers(), [&](Operation *user) {
            return !memberSet.contains(user);
          }))
        return std::nullopt;
  return p;
}

/// Parameters computed by the same arithmetic up to constants: computed in
/// one loop whose constants come from per-position tables (a table of N
/// gates then costs O(1) code whatever N).
constexpr unsigned kMinGroup = 4;
/// Largest computation a loop is made for (ops, constants excluded).
constexpr unsigned kMaxTemplateOps = 32;

/// The shape of the computation of one parameter: its ops (post order),
/// the constants that differ between parameters of the same shape (f64 and
/// index "holes"), and a key equal for computations that differ only there.
struct Shape {
  std::string key;
  SmallVector<Operation *> ops;
  SmallVector<Operation *> holeOps;
  SmallVector<Attribute> holes;
};

/// The shape of `root`'s computation, or nullopt if it is not made of ops
/// for which `inside` holds (then it is computed on its own).
std::optional<Shape> shapeOf(Value root,
                             llvm::function_ref<bool(Operation *)> inside) {
  Shape shape;
  llvm::raw_string_ostream key(shape.key);
  DenseMap<Operation *, unsigned> ids, holeIds;
  // Post order without recursion: (op, operands pushed?).
  SmallVector<std::pair<Operation *, bool>> stack;
  Operation *rootOp = root.getDefiningOp();
  if (!rootOp || !inside(rootOp))
    return std::nullopt;
  stack.push_back({rootOp, false});
  while (!stack.empty()) {
    auto [op, expanded] = stack.back();
    if (ids.contains(op)) {
      stack.pop_back();
      continue;
    }
    if (!expanded) {
      stack.back().second = true;
      for (Value v : llvm::reverse(op->getOperands()))
        if (Operation *d = v.getDefiningOp();
            d && !d->hasTrait<OpTrait::ConstantLike>() && inside(d) &&
            !ids.contains(d))
          stack.push_back({d, false});
      continue;
    }
    stack.pop_back();
    if (shape.ops.size() == kMaxTemplateOps)
      return std::nullopt;
    ids[op] = shape.ops.size();
    shape.ops.push_back(op);
    key << op->getName() << op->getAttrDictionary().getAsOpaquePointer()
        << '(';
    for (Value v : op->getOperands()) {
      Operation *d = v.getDefiningOp();
      if (d && d->hasTrait<OpTrait::ConstantLike>()) {
        Attribute value = d->getAttrDictionary().get("value");
        if (isa_and_nonnull<FloatAttr>(value) ||
            (isa_and_nonnull<IntegerAttr>(value) && v.getType().isIndex())) {
          auto [it, fresh] = holeIds.try_emplace(d, shape.holes.size());
          if (fresh) {
            shape.holeOps.push_back(d);
            shape.holes.push_back(value);
          }
          key << 'h' << it->second << v.getType();
        } else {
          key << 'c' << d->getAttrDictionary().getAsOpaquePointer();
        }
      } else if (auto it = d ? ids.find(d) : ids.end(); it != ids.end()) {
        key << 'o' << it->second << '.' << cast<OpResult>(v).getResultNumber();
      } else {
        key << 'v' << v.getAsOpaquePointer();
      }
      key << ',';
    }
    key << ')';
  }
  key << 'r' << cast<OpResult>(root).getResultNumber();
  return shape;
}

class Outliner {
public:
  Outliner(func::FuncOp parent, SymbolTable &symbols, unsigned minGates,
           unsigned maxGates, unsigned maxTableGates, bool tabulate)
      : parent(parent), symbols(symbols), minGates(minGates),
        maxGates(maxGates),
        maxTableGates(std::max(maxGates, maxTableGates)), tabulate(tabulate),
        insertAfter(parent) {}

  /// Outlines `block` level by level until at most minGates units are left
  /// or nothing can be grouped.
  void run(Block &block) {
    for (;;) {
      int64_t units = 0;
      for (Operation &op : block)
        units += isUnit(&op);
      if (units <= int64_t(minGates))
        return;
      bool progress = false;
      for (SmallVector<Operation *> &run : runs(block))
        for (ArrayRef<Operation *> chunk : split(block, run))
          if (chunk.size() >= 2) {
            outline(block, chunk);
            progress = true;
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

  /// The ops `unit` would add to a chunk that already clones `seen`
  /// (constants are free), counted up to `limit` + 1.
  static int64_t cloneCost(Operation *unit, Block &block,
                           DenseSet<Operation *> &seen, int64_t limit) {
    int64_t cost = 0;
    SmallVector<Value> stack(unit->getOperands());
    while (!stack.empty() && cost <= limit) {
      Operation *def = stack.pop_back_val().getDefiningOp();
      if (!def || def->hasTrait<OpTrait::ConstantLike>() ||
          !cloneable(def, block) || !seen.insert(def).second)
        continue;
      ++cost;
      llvm::append_range(stack, def->getOperands());
    }
    return cost;
  }

  /// The code `unit` adds to a chunk: what it clones (cloneCost) or, for a
  /// gate's parameter computed like one already in the chunk (a table
  /// computes such parameters in one loop, Shape), one table slot.
  int64_t unitCost(Operation *unit, Block &block, DenseSet<Operation *> &seen,
                   llvm::StringSet<> &shapes, int64_t limit) {
    auto gate = dyn_cast<QuantumGate>(unit);
    if (!tabulate || !gate)
      return cloneCost(unit, block, seen, limit);
    int64_t cost = 0;
    for (Value v : gate.getGateParams()) {
      Operation *def = v.getDefiningOp();
      if (!def || def->hasTrait<OpTrait::ConstantLike>())
        continue;
      std::optional<Shape> shape =
          shapeOf(v, [&](Operation *op) { return cloneable(op, block); });
      if (!shape) {
        if (cloneable(def, block) && seen.insert(def).second)
          cost += 1 + cloneCost(def, block, seen, limit - cost);
      } else
        cost += shapes.insert(shape->key).second ? shape->ops.size() : 1;
    }
    return cost;
  }

  /// Cuts a run into chunks of at most maxGates units whose code (unitCost)
  /// is at most maxGates between them: a chunk bounds the code of its
  /// function. A chunk of gates only becomes a table, whose gates are data:
  /// it may hold up to maxTableGates of them.
  SmallVector<ArrayRef<Operation *>> split(Block &block,
                                           ArrayRef<Operation *> run) {
    SmallVector<ArrayRef<Operation *>> out;
    DenseSet<Operation *> seen;
    llvm::StringSet<> shapes;
    int64_t begin = 0, code = 0, limit = maxGates;
    bool allGates = true;
    for (int64_t i = 0, e = run.size(); i < e; ++i) {
      int64_t cost = unitCost(run[i], block, seen, shapes, limit - code);
      bool gates = allGates && tabulate && isa<QuantumGate>(run[i]);
      int64_t units = gates ? int64_t(maxTableGates) : limit;
      if (i > begin && (i - begin >= units || code + cost > limit)) {
        out.push_back(run.slice(begin, i - begin));
        begin = i;
        seen.clear();
        shapes.clear();
        cost = unitCost(run[i], block, seen, shapes, limit);
        code = 0;
        gates = tabulate && isa<QuantumGate>(run[i]);
      }
      code += cost;
      allGates = gates;
    }
    out.push_back(run.slice(begin));
    return out;
  }

  /// Replaces `members` (consecutive units of `block`, in order) by a call
  /// to a new private function holding them.
  void outline(Block &block, ArrayRef<Operation *> members) {
    MLIRContext *ctx = parent.getContext();
    DenseSet<Operation *> memberSet(members.begin(), members.end());
    std::optional<TablePlan> plan;
    if (tabulate)
      plan = planTable(members, memberSet);
    // Without a table the gates are code: at most maxGates per function.
    if (!plan && members.size() > maxGates) {
      for (size_t i = 0; i < members.size(); i += maxGates) {
        ArrayRef<Operation *> part =
            members.slice(i, std::min<size_t>(maxGates, members.size() - i));
        if (part.size() >= 2)
          outline(block, part);
      }
      return;
    }
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
    // As split() counted: beyond it (one gate's computation alone is
    // larger), values are passed instead.
    int64_t budget = maxGates;

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

    // Outside values in order of first use (arguments in that order); with
    // a table, the qubits first, then what the parameters need.
    GateTableOp table;
    if (!plan) {
      for (Operation *op : members) {
        for (Value v : op->getOperands())
          materialize(v);
        b.clone(*op, map);
      }
    } else {
      for (Value v : plan->inputs)
        materialize(v);
      Value params = buildParams(*plan, b, loc, block, materialize, map);
      SmallVector<Value> inputs = llvm::map_to_vector(
          plan->inputs, [&](Value v) { return map.lookup(v); });
      table = GateTableOp::create(
          b, loc, ValueRange(inputs).getTypes(), inputs, params,
          b.getStrArrayAttr(plan->kinds), b.getStringAttr(plan->words),
          b.getDenseI32ArrayAttr(plan->records));
    }
    SmallVector<Value> results, returned;
    for (Operation *op : members)
      for (Value r : op->getResults())
        if (llvm::any_of(r.getUsers(), [&](Operation *user) {
              return !memberSet.contains(user);
            })) {
          results.push_back(r);
          returned.push_back(plan ? table.getResult(plan->wireOf.lookup(r))
                                  : map.lookup(r));
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

  /// The table's parameter tensor, in the chunk body: constants in an
  /// initial constant tensor, parameters computed the same way (Shape) in
  /// one scf.for each (their records renumbered to a contiguous range), the
  /// rest computed one by one (materialize) and inserted. Null without
  /// parameters.
  template <typename Materialize>
  Value buildParams(TablePlan &plan, OpBuilder &b, Location loc, Block &block,
                    Materialize &materialize, IRMapping &map) {
    int64_t n = plan.params.size();
    if (n == 0)
      return Value();
    Type f64 = b.getF64Type();
    // Classify in order: constant, member of a shape group, or single.
    SmallVector<std::optional<Shape>> shapes(n);
    llvm::StringMap<SmallVector<int64_t>> groups;
    SmallVector<SmallVector<int64_t> *> groupOrder;
    SmallVector<Attribute> constants(n);
    auto inside = [&](Operation *op) { return cloneable(op, block); };
    for (int64_t j = 0; j < n; ++j) {
      Value v = plan.params[j];
      Operation *def = v.getDefiningOp();
      if (def && def->hasTrait<OpTrait::ConstantLike>()) {
        constants[j] = def->getAttrDictionary().get("value");
        if (isa_and_nonnull<FloatAttr>(constants[j]))
          continue;
        constants[j] = {};
      }
      shapes[j] = shapeOf(v, inside);
      if (!shapes[j])
        continue;
      auto [it, fresh] = groups.try_emplace(shapes[j]->key);
      if (fresh)
        groupOrder.push_back(&it->second);
      it->second.push_back(j);
    }
    // New positions: a group's members are contiguous.
    SmallVector<int64_t> position(n, -1);
    int64_t next = 0;
    for (int64_t j = 0; j < n; ++j) {
      if (position[j] >= 0)
        continue;
      SmallVector<int64_t> *group =
          shapes[j] ? &groups[shapes[j]->key] : nullptr;
      if (group && group->size() >= kMinGroup)
        for (int64_t m : *group)
          position[m] = next++;
      else
        position[j] = next++;
    }
    for (size_t pos = 0; pos < plan.records.size();
         pos += 6 + plan.records[pos + 3] + plan.records[pos + 4])
      if (plan.records[pos + 2] >= 0)
        plan.records[pos + 2] = position[plan.records[pos + 2]];

    // A stack buffer (bufferized in place, nothing to free), the constants
    // copied in first.
    auto tensorTy = RankedTensorType::get({n}, f64);
    Value buffer = memref::AllocaOp::create(b, loc, MemRefType::get({n}, f64));
    Value params = bufferization::ToTensorOp::create(
        b, loc, tensorTy, buffer, /*restrict=*/true, /*writable=*/true);
    if (llvm::any_of(constants, [](Attribute a) { return bool(a); })) {
      SmallVector<double> init(n, 0.0);
      for (int64_t j = 0; j < n; ++j)
        if (constants[j])
          init[position[j]] = cast<FloatAttr>(constants[j]).getValueAsDouble();
      Value values = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(tensorTy, ArrayRef(init)));
      params = tensor::InsertSliceOp::create(
          b, loc, values, params, ArrayRef<OpFoldResult>{b.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(n)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    }
    auto indexConst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    // Singles, then each group's loop.
    for (int64_t j = 0; j < n; ++j) {
      if (constants[j] ||
          (shapes[j] && groups[shapes[j]->key].size() >= kMinGroup))
        continue;
      materialize(plan.params[j]);
      params = tensor::InsertOp::create(b, loc, map.lookup(plan.params[j]),
                                        params, indexConst(position[j]));
    }
    for (SmallVector<int64_t> *group : groupOrder) {
      if (group->size() < kMinGroup)
        continue;
      const Shape &first = *shapes[group->front()];
      int64_t g = group->size();
      // Values from outside the computation: the same for every member.
      DenseSet<Operation *> templateOps(first.ops.begin(), first.ops.end());
      for (Operation *op : first.ops)
        for (Value v : op->getOperands()) {
          Operation *d = v.getDefiningOp();
          if (!(d && (templateOps.contains(d) ||
                      d->hasTrait<OpTrait::ConstantLike>())))
            materialize(v);
        }
      // One table per constant that differs between members (holes[h] of
      // member m); a constant that does not differ stays a constant.
      SmallVector<Value> holeTables;
      for (auto [h, hole] : llvm::enumerate(first.holes)) {
        SmallVector<Attribute> values;
        for (int64_t m : *group)
          values.push_back(shapes[m]->holes[h]);
        if (llvm::all_equal(values)) {
          holeTables.push_back(Value());
          continue;
        }
        auto ty = RankedTensorType::get({g}, cast<TypedAttr>(hole).getType());
        holeTables.push_back(arith::ConstantOp::create(
            b, loc, DenseElementsAttr::get(ty, values)));
      }
      Value lb = indexConst(0), ub = indexConst(g), step = indexConst(1);
      Value base = indexConst(position[group->front()]);
      auto loop = scf::ForOp::create(b, loc, lb, ub, step, ValueRange{params});
      OpBuilder lbld = OpBuilder::atBlockBegin(loop.getBody());
      Value i = loop.getInductionVar();
      IRMapping inner = map;
      for (auto [h, holeOp] : llvm::enumerate(first.holeOps)) {
        if (holeTables[h])
          inner.map(holeOp->getResult(0),
                    tensor::ExtractOp::create(lbld, loc, holeTables[h], i));
        else
          lbld.clone(*holeOp, inner);
      }
      for (Operation *op : first.ops) {
        for (Value v : op->getOperands())
          if (Operation *d = v.getDefiningOp();
              d && d->hasTrait<OpTrait::ConstantLike>() && !inner.contains(v))
            lbld.clone(*d, inner);
        lbld.clone(*op, inner);
      }
      for (int64_t m : *group) {
        cloneSources.insert(shapes[m]->ops.begin(), shapes[m]->ops.end());
        cloneSources.insert(shapes[m]->holeOps.begin(), shapes[m]->holeOps.end());
      }
      Value dst = arith::AddIOp::create(lbld, loc, i, base);
      Value acc = tensor::InsertOp::create(
          lbld, loc, inner.lookup(plan.params[group->front()]),
          loop.getRegionIterArgs()[0], dst);
      scf::YieldOp::create(lbld, loc, acc);
      params = loop.getResult(0);
    }
    return params;
  }

  func::FuncOp parent;
  SymbolTable &symbols;
  unsigned minGates, maxGates, maxTableGates;
  bool tabulate;
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
      Outliner outliner(fn, symbols, minGates, maxGates, maxTableGates,
                        tabulate);
      for (Block *block : blocks)
        outliner.run(*block);
      outliner.eraseDeadSources();
    }
  }
};
} // namespace
