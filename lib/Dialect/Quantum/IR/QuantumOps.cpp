//===- QuantumOps.cpp - quantum dialect operations ------------------------===//
#include "q2/Dialect/Quantum/IR/QuantumOps.h"
#include "q2/Dialect/Quantum/IR/GateTable.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace q2::quantum;

/// Largest register: 2^62 amplitudes still index with int64 and the probs
/// tensor size fits in an int64 dimension.
static constexpr int64_t kMaxQubits = 62;

LogicalResult AllocOp::verify() {
  int64_t n = getSize();
  if (n < 1 || n > kMaxQubits)
    return emitOpError("register size must be in [1, ")
           << kMaxQubits << "], got " << n;
  return success();
}

/// The allocation a register value comes from through a chain of inserts,
/// if it is in view. Per-op verifiers run before dominance is checked, so
/// the chain may be a cycle (`%r = quantum.insert %r[0], %q`): each insert
/// is visited once (regression: the walk never ended).
static AllocOp allocOfRegister(Value reg) {
  llvm::SmallPtrSet<Operation *, 8> seen;
  while (auto ins = reg.getDefiningOp<InsertOp>()) {
    if (!seen.insert(ins.getOperation()).second)
      return nullptr;
    reg = ins.getInReg();
  }
  return reg.getDefiningOp<AllocOp>();
}

/// Shared by extract/insert: exactly one index form, and a static index must
/// lie inside a register whose size is known from its alloc.
template <typename OpT>
static LogicalResult verifyIndex(OpT op, Value reg) {
  bool hasDyn = static_cast<bool>(op.getIdx());
  bool hasStatic = op.getIdxAttr().has_value();
  if (hasDyn == hasStatic)
    return op.emitOpError("expects exactly one of a static index and an "
                          "index operand");
  if (!hasStatic)
    return success();
  int64_t idx = static_cast<int64_t>(*op.getIdxAttr());
  // Walk back through inserts to the allocation, if it is in view.
  if (AllocOp alloc = allocOfRegister(reg))
    if (idx >= static_cast<int64_t>(alloc.getSize()))
      return op.emitOpError("qubit index ")
             << idx << " is out of range for a register of "
             << alloc.getSize() << " qubits";
  return success();
}

LogicalResult ExtractOp::verify() { return verifyIndex(*this, getReg()); }
LogicalResult InsertOp::verify() { return verifyIndex(*this, getInReg()); }

/// Checks that no qubit value feeds one gate twice (a qubit cannot be both
/// target and control, nor appear twice as target).
static LogicalResult verifyDistinctQubits(Operation *op, ValueRange targets,
                                          ValueRange ctrls) {
  llvm::SmallPtrSet<void *, 8> seen;
  for (Value v : llvm::concat<const Value>(targets, ctrls))
    if (!seen.insert(v.getAsOpaquePointer()).second)
      return op->emitOpError("uses the same qubit value more than once");
  return success();
}

LogicalResult q2::quantum::detail::verifyGate(Operation *op) {
  auto gate = cast<QuantumGate>(op);
  if (gate.getTargetResults().size() != gate.getTargetOperands().size())
    return op->emitOpError("expects ")
           << gate.getTargetOperands().size() << " target results, got "
           << gate.getTargetResults().size();
  if (gate.getCtrlResults().size() != gate.getCtrlOperands().size())
    return op->emitOpError("expects ")
           << gate.getCtrlOperands().size() << " control results, got "
           << gate.getCtrlResults().size();
  return verifyDistinctQubits(op, gate.getTargetOperands(),
                              gate.getCtrlOperands());
}

LogicalResult CustomOp::verify() {
  std::optional<GateInfo> gate = lookupGate(getGateName());
  if (!gate)
    return emitOpError("unknown gate '") << getGateName() << "'";
  if (getParams().size() != gate->numParams)
    return emitOpError("gate '")
           << gate->name << "' expects " << gate->numParams
           << " parameter(s), got " << getParams().size();
  if (getInQubits().size() != gate->numTargets)
    return emitOpError("gate '")
           << gate->name << "' expects " << gate->numTargets
           << " target qubit(s), got " << getInQubits().size();
  return success();
}

LogicalResult PauliRotOp::verify() {
  StringRef word = getPauliWord();
  if (word.empty())
    return emitOpError("Pauli word must not be empty");
  if (word.size() != getInQubits().size())
    return emitOpError("Pauli word '")
           << word << "' has " << word.size() << " letter(s) but the op has "
           << getInQubits().size() << " target qubit(s)";
  size_t bad = word.find_first_not_of("IXYZ");
  if (bad != StringRef::npos)
    return emitOpError("Pauli word '")
           << word << "' has letter '" << word[bad] << "' at position " << bad
           << "; expected one of I, X, Y, Z";
  return success();
}

//===----------------------------------------------------------------------===//
// GateTableOp
//===----------------------------------------------------------------------===//

/// Fields of a record before its wires.
static constexpr size_t kRecordHeader = 6;

LogicalResult GateTableOp::verify() {
  int64_t numWires = getInQubits().size();
  // Parameters: none, a 1-D tensor/memref of static size, or of unknown
  // size (any index >= 0 accepted).
  int64_t numParams = 0;
  if (Value p = getParams()) {
    auto shaped = cast<ShapedType>(p.getType());
    if (shaped.getRank() != 1)
      return emitOpError("params must be 1-D, got rank ") << shaped.getRank();
    numParams = shaped.isDynamicDim(0) ? INT32_MAX : shaped.getDimSize(0);
  }
  if (int64_t(getOutQubits().size()) != numWires)
    return emitOpError("expects ")
           << numWires << " results (one per qubit operand), got "
           << getOutQubits().size();
  // Per kind: the gate, or nullopt for a Pauli rotation.
  SmallVector<std::optional<GateInfo>> kinds;
  for (Attribute a : getKinds()) {
    StringRef k = cast<StringAttr>(a).getValue();
    if (isPauliKind(k)) {
      kinds.push_back(std::nullopt);
      continue;
    }
    std::optional<GateInfo> g = lookupGate(k);
    if (!g)
      return emitOpError("unknown gate kind '") << k << "'";
    kinds.push_back(g);
  }
  StringRef words = getWords();
  if (size_t bad = words.find_first_not_of("IXYZ"); bad != StringRef::npos)
    return emitOpError("words has letter '")
           << words[bad] << "' at position " << bad
           << "; expected one of I, X, Y, Z";
  ArrayRef<int32_t> r = getRecords();
  // Record index that last used each wire (no wire twice in one gate).
  SmallVector<int64_t> lastUse(numWires, -1);
  for (size_t pos = 0, index = 0; pos < r.size(); ++index) {
    auto error = [&]() {
      return emitOpError("record ") << index << " (at " << pos << "): ";
    };
    if (r.size() - pos < kRecordHeader)
      return error() << "truncated";
    int64_t kind = r[pos], adj = r[pos + 1], param = r[pos + 2],
            nT = r[pos + 3], nC = r[pos + 4], word = r[pos + 5];
    if (kind < 0 || kind >= int64_t(kinds.size()))
      return error() << "kind " << kind << " is not an index into kinds";
    if (adj != 0 && adj != 1)
      return error() << "adjoint must be 0 or 1, got " << adj;
    if (nT < 1 || nC < 0)
      return error() << "needs at least one target and no negative count";
    if (int64_t(r.size() - pos - kRecordHeader) < nT + nC)
      return error() << "truncated";
    if (param < -1)
      return error() << "param must be -1 or an index, got " << param;
    if (param >= numParams)
      return error() << "param " << param << " is out of range for "
                     << numParams << " parameter(s)";
    if (const std::optional<GateInfo> &g = kinds[kind]) {
      if (nT != g->numTargets)
        return error() << "gate '" << g->name << "' expects "
                       << g->numTargets << " target(s), got " << nT;
      if ((param >= 0) != (g->numParams == 1))
        return error() << "gate '" << g->name << "' expects "
                       << g->numParams << " parameter(s)";
      if (word != 0)
        return error() << "word must be 0 for gate '" << g->name << "'";
    } else {
      if (param < 0)
        return error() << "a Pauli rotation needs a parameter";
      if (word < 0 || word + nT > int64_t(words.size()))
        return error() << "word [" << word << ", " << word + nT
                       << ") is outside words (" << words.size()
                       << " letters)";
    }
    for (int32_t w : r.slice(pos + kRecordHeader, nT + nC)) {
      if (w < 0 || w >= numWires)
        return error() << "wire " << w << " is not an index into "
                       << numWires << " qubit(s)";
      if (lastUse[w] == int64_t(index))
        return error() << "uses wire " << w << " more than once";
      lastUse[w] = index;
    }
    pos += kRecordHeader + nT + nC;
  }
  return success();
}

/// Reads its parameters (the table itself is an attribute).
void GateTableOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (getParams() && isa<MemRefType>(getParams().getType()))
    effects.emplace_back(MemoryEffects::Read::get(), &getParamsMutable()[0],
                         SideEffects::DefaultResource::get());
}

int64_t GateTableOp::getNumGates() {
  int64_t n = 0;
  ArrayRef<int32_t> r = getRecords();
  for (size_t pos = 0; pos < r.size(); ++n)
    pos += kRecordHeader + r[pos + 3] + r[pos + 4];
  return n;
}

void GateTableOp::forEachRecord(
    llvm::function_ref<void(const Record &)> fn) {
  ArrayRef<int32_t> r = getRecords();
  for (size_t pos = 0; pos < r.size();) {
    Record rec{r[pos],     r[pos + 1], r[pos + 2], r[pos + 3],
               r[pos + 4], r[pos + 5], {},         {}};
    rec.targets = r.slice(pos + kRecordHeader, rec.numTargets);
    rec.ctrls = r.slice(pos + kRecordHeader + rec.numTargets, rec.numCtrls);
    fn(rec);
    pos += kRecordHeader + rec.numTargets + rec.numCtrls;
  }
}

//===----------------------------------------------------------------------===//
// QuantumGate
//===----------------------------------------------------------------------===//

ValueRange CustomOp::getGateParams() { return getParams(); }
// The theta operand group (a range that lives in the op, not a temporary).
ValueRange PauliRotOp::getGateParams() { return getODSOperands(0); }

bool CustomOp::isSameKind(QuantumGate other) {
  auto o = dyn_cast<CustomOp>(other.getOperation());
  return o && o.getGateName() == getGateName();
}
bool PauliRotOp::isSameKind(QuantumGate other) {
  auto o = dyn_cast<PauliRotOp>(other.getOperation());
  return o && o.getPauliWord() == getPauliWord();
}

bool CustomOp::cancels(QuantumGate prev) {
  if (!isSameKind(prev) || !llvm::equal(prev.getGateParams(), getGateParams()))
    return false;
  std::optional<GateInfo> gate = lookupGate(getGateName());
  return gate && (gate->selfInverse || prev.isAdjoint() != getAdjoint());
}
bool PauliRotOp::cancels(QuantumGate prev) {
  return isSameKind(prev) &&
         llvm::equal(prev.getGateParams(), getGateParams()) &&
         prev.isAdjoint() != getAdjoint();
}

bool CustomOp::isAdditiveRotation() {
  std::optional<GateInfo> gate = lookupGate(getGateName());
  return gate && gate->additiveRotation;
}
bool PauliRotOp::isAdditiveRotation() { return true; }

Operation *CustomOp::cloneWithAngle(OpBuilder &b, Location loc, Value angle) {
  return CustomOp::create(b, loc, getOutQubits().getTypes(),
                          getOutCtrlQubits().getTypes(), getGateNameAttr(),
                          ValueRange{angle}, getInQubits(), getInCtrlQubits(),
                          /*adjoint=*/false);
}
Operation *PauliRotOp::cloneWithAngle(OpBuilder &b, Location loc, Value angle) {
  return PauliRotOp::create(b, loc, getOutQubits().getTypes(),
                            getOutCtrlQubits().getTypes(), getPauliWordAttr(),
                            angle, getInQubits(), getInCtrlQubits(),
                            /*adjoint=*/false);
}

int64_t ProbsOp::getNumMeasuredQubits() {
  if (getReg())
    return getRegCount() ? static_cast<int64_t>(*getRegCount()) : 0;
  return static_cast<int64_t>(getQubits().size());
}

LogicalResult ProbsOp::verify() {
  bool listed = !getQubits().empty();
  bool ranged = static_cast<bool>(getReg());
  if (listed == ranged)
    return emitOpError("expects either qubit operands or a register range, "
                       "not both or neither");
  if (ranged && (!getRegStart() || !getRegCount()))
    return emitOpError("register range needs a start and a count");
  // The count is an unsigned attribute: compare before converting.
  if (ranged && *getRegCount() > uint64_t(kMaxQubits))
    return emitOpError("cannot return probabilities of ")
           << *getRegCount() << " qubits";
  int64_t n = getNumMeasuredQubits();
  if (n == 0)
    return emitOpError("expects at least one qubit");
  if (n > kMaxQubits)
    return emitOpError("cannot return probabilities of ") << n << " qubits";
  if (ranged) {
    // Both are at most kMaxQubits here, so the end cannot overflow.
    if (*getRegStart() > uint64_t(kMaxQubits))
      return emitOpError("register range starts at qubit ")
             << *getRegStart() << ", beyond the largest register ("
             << kMaxQubits << " qubits)";
    int64_t end = static_cast<int64_t>(*getRegStart()) + n;
    if (AllocOp alloc = allocOfRegister(getReg()))
      if (end > static_cast<int64_t>(alloc.getSize()))
        return emitOpError("register range [")
               << *getRegStart() << ", " << end << ") exceeds a register of "
               << alloc.getSize() << " qubits";
  }
  bool hasResult = static_cast<bool>(getProbabilities());
  bool hasBuffer = static_cast<bool>(getStateIn());
  if (hasResult == hasBuffer)
    return emitOpError("expects either a tensor result or an out-buffer "
                       "(`in(...)`), not both or neither");
  ShapedType shaped =
      hasResult ? cast<ShapedType>(getProbabilities().getType())
                : cast<ShapedType>(getStateIn().getType());
  int64_t expected = int64_t(1) << n;
  if (shaped.getRank() != 1 || shaped.getDimSize(0) != expected)
    return emitOpError("expects a 1-D shape of ")
           << expected << " elements (2^" << n << "), got " << shaped;
  return success();
}

//===----------------------------------------------------------------------===//
// PowerOp
//===----------------------------------------------------------------------===//

void PowerOp::build(OpBuilder &b, OperationState &state, Value count,
                    ValueRange qubits) {
  state.addOperands(count);
  state.addOperands(qubits);
  state.addTypes(qubits.getTypes());
  Region *body = state.addRegion();
  Block *block = new Block();
  for (Value q : qubits)
    block->addArgument(q.getType(), q.getLoc());
  body->push_back(block);
}

// %out:2 = quantum.power %n qubits(%a, %b) : !quantum.bit, !quantum.bit {
// ^bb0(%x: !quantum.bit, %y: !quantum.bit): ... quantum.yield %x, %y : ... }
ParseResult PowerOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand count;
  SmallVector<OpAsmParser::UnresolvedOperand> qubits;
  SmallVector<Type> types;
  if (parser.parseOperand(count) || parser.parseKeyword("qubits") ||
      parser.parseOperandList(qubits, OpAsmParser::Delimiter::Paren) ||
      parser.parseOptionalAttrDict(result.attributes))
    return failure();
  if (!qubits.empty() &&
      (parser.parseColon() || parser.parseTypeList(types)))
    return failure();
  if (types.size() != qubits.size())
    return parser.emitError(parser.getCurrentLocation(), "expected ")
           << qubits.size() << " qubit types, got " << types.size();
  if (parser.resolveOperand(count, parser.getBuilder().getIndexType(),
                            result.operands) ||
      parser.resolveOperands(qubits, types, parser.getCurrentLocation(),
                             result.operands))
    return failure();
  result.addTypes(types);
  Region *body = result.addRegion();
  if (parser.parseRegion(*body))
    return failure();
  PowerOp::ensureTerminator(*body, parser.getBuilder(), result.location);
  return success();
}

void PowerOp::print(OpAsmPrinter &p) {
  p << ' ' << getCount() << " qubits(" << getQubits() << ")";
  p.printOptionalAttrDict((*this)->getAttrs());
  if (!getQubits().empty())
    p << " : " << getQubits().getTypes();
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/true,
                /*printBlockTerminators=*/true);
}

LogicalResult PowerOp::verify() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getQubits().size())
    return emitOpError("body has ")
           << body.getNumArguments() << " argument(s) for "
           << getQubits().size() << " qubit(s)";
  for (auto [arg, q] : llvm::zip(body.getArguments(), getQubits()))
    if (arg.getType() != q.getType())
      return emitOpError("body argument types must be the qubits' types");
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getQubits().size() != getQubits().size())
    return emitOpError("body yields ")
           << yield.getQubits().size() << " qubit(s), expected "
           << getQubits().size();
  // Recorded, not executed, by the runtime: only gates and side-effect-free
  // ops (angle arithmetic, nested powers) belong in the body. Calls are the
  // gate chunks quantum-outline-chunks makes; the runtime refuses anything
  // but gates while it records, so a callee cannot break this at run time.
  WalkResult r = body.walk([&](Operation *op) {
    if (isa<YieldOp, PowerOp, GateTableOp>(op) || isa<QuantumGate>(op) ||
        isa<CallOpInterface>(op) || isMemoryEffectFree(op))
      return WalkResult::advance();
    // Reading the coefficient/angle buffers after bufferization is allowed.
    if (auto mem = dyn_cast<MemoryEffectOpInterface>(op))
      if (mem.onlyHasEffect<MemoryEffects::Read>())
        return WalkResult::advance();
    op->emitOpError("cannot be repeated as part of a quantum.power body "
                    "(only gates and side-effect-free operations can)");
    return WalkResult::interrupt();
  });
  return failure(r.wasInterrupted());
}

LogicalResult YieldOp::verify() {
  auto power = cast<PowerOp>((*this)->getParentOp());
  if (getQubits().getTypes() != power.getResultTypes())
    return emitOpError("yields types that are not the quantum.power's results");
  return success();
}

namespace {
/// count = 0: the identity; the block is dropped.
struct ErasePowerZero : OpRewritePattern<PowerOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PowerOp op,
                                PatternRewriter &rewriter) const override {
    if (!matchPattern(op.getCount(), m_Zero()))
      return failure();
    rewriter.replaceOp(op, op.getQubits());
    return success();
  }
};
/// count = 1: the block once, inline.
struct InlinePowerOne : OpRewritePattern<PowerOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PowerOp op,
                                PatternRewriter &rewriter) const override {
    if (!matchPattern(op.getCount(), m_One()))
      return failure();
    Block &body = op.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    SmallVector<Value> results(yield.getQubits());
    rewriter.inlineBlockBefore(&body, op, op.getQubits());
    rewriter.eraseOp(yield);
    rewriter.replaceOp(op, results);
    return success();
  }
};
} // namespace

void PowerOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *ctx) {
  results.add<ErasePowerZero, InlinePowerOne>(ctx);
}

/// `[3]` or `[%i]`: a static index or an i64 operand.
static ParseResult
parseQubitIndex(OpAsmParser &parser,
                std::optional<OpAsmParser::UnresolvedOperand> &idx,
                IntegerAttr &idxAttr) {
  OpAsmParser::UnresolvedOperand operand;
  OptionalParseResult hasOperand = parser.parseOptionalOperand(operand);
  if (hasOperand.has_value()) {
    if (failed(*hasOperand))
      return failure();
    idx = operand;
    return success();
  }
  int64_t value = 0;
  if (parser.parseInteger(value))
    return failure();
  idxAttr = parser.getBuilder().getI64IntegerAttr(value);
  return success();
}

static void printQubitIndex(OpAsmPrinter &printer, Operation *, Value idx,
                            IntegerAttr idxAttr) {
  if (idx)
    printer << idx;
  else if (idxAttr)
    printer << idxAttr.getInt();
}

/// A gate table's records as DenseI32ArrayAttr prints them stripped
/// (`[1, 0, -1]`), each number formatted into a small buffer: a table has
/// 10^6 entries, and the attribute's own printer costs about four times as
/// much (every print of the IR, including the profiler's size counts).
static ParseResult parseGateRecords(OpAsmParser &parser,
                                    DenseI32ArrayAttr &records) {
  return parser.parseCustomAttributeWithFallback(records);
}

static void printGateRecords(OpAsmPrinter &printer, Operation *,
                             DenseI32ArrayAttr records) {
  raw_ostream &os = printer.getStream();
  char buf[4096];
  size_t n = 0;
  buf[n++] = '[';
  bool first = true;
  for (int32_t v : records.asArrayRef()) {
    if (n > sizeof(buf) - 16) {
      os.write(buf, n);
      n = 0;
    }
    if (!first) {
      buf[n++] = ',';
      buf[n++] = ' ';
    }
    first = false;
    uint32_t u = v < 0 ? 0u - uint32_t(v) : uint32_t(v);
    if (v < 0)
      buf[n++] = '-';
    char digits[10];
    int k = 0;
    do {
      digits[k++] = char('0' + u % 10);
      u /= 10;
    } while (u);
    while (k)
      buf[n++] = digits[--k];
  }
  buf[n++] = ']';
  os.write(buf, n);
}

#include "q2/Dialect/Quantum/IR/QuantumInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "q2/Dialect/Quantum/IR/QuantumOps.cpp.inc"
