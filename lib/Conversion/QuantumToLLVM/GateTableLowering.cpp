//===- GateTableLowering.cpp - quantum.gate_table -> one loop over data ---===//
#include "LoweringState.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace q2::quantum_to_llvm {
namespace {
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
                                                           : q2::runtimeGateId(kind));
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
      LoweringState::markPlainLoop(
          LLVM::BrOp::create(rewriter, loc, ValueRange{k1}, loop));
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
    LoweringState::markPlainLoop(LLVM::BrOp::create(
        rewriter, loc, ValueRange{gep(i32, cWires, nC)}, header));

    rewriter.setInsertionPointToStart(exit);
    rewriter.replaceOp(op, adaptor.getInQubits());
    return success();
  }
};
} // namespace

void populateGateTableLowering(const TypeConverter &converter,
                               RewritePatternSet &patterns,
                               std::shared_ptr<LoweringState> state) {
  patterns.add<GateTableLowering>(converter, patterns.getContext(),
                                  std::move(state));
}

} // namespace q2::quantum_to_llvm
