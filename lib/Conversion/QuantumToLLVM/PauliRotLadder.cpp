//===- PauliRotLadder.cpp - the __q2_pauli_rot_ladder helper --------------===//
//
// A Pauli rotation executed as its decomposed gates, emitted once per module
// as an LLVM function; the gate-table loop calls it for `pauli_rot_ladder`
// records.
//
//===----------------------------------------------------------------------===//
#include "LoweringState.h"

#include <cmath>

namespace q2::quantum_to_llvm {

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
    return cst(i32, rewriter.getI32IntegerAttr(q2::runtimeGateId(name)));
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
    LoweringState::markPlainLoop(
        LLVM::BrOp::create(rewriter, loc, ValueRange{i1}, head));
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
    LoweringState::markPlainLoop(LLVM::BrOp::create(
        rewriter, loc, ValueRange{step, next->getArgument(0)}, head));
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

} // namespace q2::quantum_to_llvm
