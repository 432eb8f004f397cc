//===- DecomposePauliRot.cpp - Pauli rotation -> Clifford + RZ ------------===//
//
// exp(-i θ/2 P) = B† L† RZ(θ) L B: B maps each X/Y factor to Z (H for X,
// RX(π/2) for Y, since RX(-π/2) Z RX(π/2) = Y), the CNOT ladder L collects
// the parity of the non-identity qubits on the last one, and RZ(θ) there
// applies the phase. Controls only need to reach the RZ: with the control
// off, B† L† L B is the identity.
//
// A gate table's rotations stay records: their kind becomes
// `pauli_rot_ladder`, and the lowering's table loop executes exactly this
// sequence per record (lib/Conversion/QuantumToLLVM/PauliRotLadder.cpp), so
// decomposing N terms costs one attribute, not ~10 ops per term.
//
//===----------------------------------------------------------------------===//
#include "q2/Dialect/Quantum/IR/QuantumOps.h"
#include "q2/Dialect/Quantum/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include <cmath>

namespace q2::quantum {
#define GEN_PASS_DEF_QUANTUMDECOMPOSEPAULIROT
#include "q2/Dialect/Quantum/Transforms/Passes.h.inc"
} // namespace q2::quantum

using namespace mlir;
using namespace q2::quantum;

namespace {
/// f64 constants made once per isolated region (a function), at the start
/// of its entry block (where the greedy driver's folder would put them),
/// not one per decomposed rotation.
struct Constants {
  DenseMap<std::pair<Region *, uint64_t>, Value> values;
  Value get(PatternRewriter &rewriter, Operation *user, double v) {
    // The region of the isolated ancestor that holds `user`.
    Region *region = user->getParentRegion();
    for (Region *r = region; r; r = r->getParentRegion())
      if (r->getParentOp()->hasTrait<OpTrait::IsIsolatedFromAbove>()) {
        region = r;
        break;
      }
    Value &c = values[{region, llvm::bit_cast<uint64_t>(v)}];
    if (!c) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&region->front());
      Location loc = user->getLoc();
      c = arith::ConstantFloatOp::create(rewriter, loc, rewriter.getF64Type(),
                                         llvm::APFloat(v));
    }
    return c;
  }
};

struct DecomposePauliRot : OpRewritePattern<PauliRotOp> {
  DecomposePauliRot(MLIRContext *ctx, Constants &constants)
      : OpRewritePattern(ctx), constants(constants) {}
  Constants &constants;

  LogicalResult matchAndRewrite(PauliRotOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type bit = rewriter.getType<BitType>();
    StringRef word = op.getPauliWord();
    Value theta = op.getTheta();
    if (op.getAdjoint())
      theta = arith::NegFOp::create(rewriter, loc, theta);

    // Current value of every target and control, updated gate by gate.
    SmallVector<Value> q(op.getInQubits());
    SmallVector<Value> ctrls(op.getInCtrlQubits());
    auto one = [&](StringRef name, ValueRange params, unsigned i) {
      auto g = CustomOp::create(rewriter, loc, TypeRange{bit}, TypeRange{},
                                rewriter.getStringAttr(name), params,
                                ValueRange{q[i]}, ValueRange{}, false);
      q[i] = g.getOutQubits()[0];
    };
    auto cnot = [&](unsigned c, unsigned t) {
      auto g = CustomOp::create(rewriter, loc, TypeRange{bit}, TypeRange{bit},
                                rewriter.getStringAttr("X"), ValueRange{},
                                ValueRange{q[t]}, ValueRange{q[c]}, false);
      q[t] = g.getOutQubits()[0];
      q[c] = g.getOutCtrlQubits()[0];
    };
    auto basis = [&](bool undo) {
      for (unsigned i = 0; i < word.size(); ++i) {
        if (word[i] == 'X')
          one("H", {}, i);
        else if (word[i] == 'Y')
          one("RX", constants.get(rewriter, op, undo ? -M_PI / 2 : M_PI / 2),
              i);
      }
    };

    SmallVector<unsigned> active;
    for (unsigned i = 0; i < word.size(); ++i)
      if (word[i] != 'I')
        active.push_back(i);

    if (active.empty()) {
      // exp(-iθ/2 I): a global phase, observable only under controls, where
      // it is PhaseShift(-θ/2) on the last control, controlled by the rest.
      if (!ctrls.empty()) {
        Value half = arith::MulFOp::create(rewriter, loc, theta,
                                           constants.get(rewriter, op, -0.5));
        SmallVector<Value> rest(ctrls.begin(), ctrls.end() - 1);
        SmallVector<Type> restTy(rest.size(), bit);
        auto g = CustomOp::create(rewriter, loc, TypeRange{bit}, restTy,
                                  rewriter.getStringAttr("PhaseShift"),
                                  ValueRange{half}, ValueRange{ctrls.back()},
                                  rest, false);
        for (unsigned i = 0; i < rest.size(); ++i)
          ctrls[i] = g.getOutCtrlQubits()[i];
        ctrls.back() = g.getOutQubits()[0];
      }
    } else {
      basis(/*undo=*/false);
      for (unsigned k = 0; k + 1 < active.size(); ++k)
        cnot(active[k], active[k + 1]);
      unsigned last = active.back();
      SmallVector<Type> cTy(ctrls.size(), bit);
      auto rz = CustomOp::create(rewriter, loc, TypeRange{bit}, cTy,
                                 rewriter.getStringAttr("RZ"), ValueRange{theta},
                                 ValueRange{q[last]}, ctrls, false);
      q[last] = rz.getOutQubits()[0];
      for (unsigned i = 0; i < ctrls.size(); ++i)
        ctrls[i] = rz.getOutCtrlQubits()[i];
      for (unsigned k = active.size() - 1; k-- > 0;)
        cnot(active[k], active[k + 1]);
      basis(/*undo=*/true);
    }
    SmallVector<Value> results(q);
    results.append(ctrls);
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct DecomposePauliRotPass
    : q2::quantum::impl::QuantumDecomposePauliRotBase<DecomposePauliRotPass> {
  using Base::Base;
  void runOnOperation() override {
    if (keepNative)
      return markAllAnalysesPreserved();
    getOperation()->walk([](GateTableOp table) {
      SmallVector<Attribute> kinds(table.getKinds().getValue());
      bool changed = false;
      for (Attribute &k : kinds)
        if (cast<StringAttr>(k).getValue() == GateTableOp::kPauliRot) {
          k = StringAttr::get(table.getContext(), GateTableOp::kPauliRotLadder);
          changed = true;
        }
      if (changed)
        table.setKindsAttr(ArrayAttr::get(table.getContext(), kinds));
    });
    Constants constants;
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposePauliRot>(&getContext(), constants);
    // One rewrite per op, no cascades: a walk is enough and much cheaper
    // than the greedy driver on large unrolled programs.
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace
