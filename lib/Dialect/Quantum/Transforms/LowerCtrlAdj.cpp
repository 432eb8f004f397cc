//===- LowerCtrlAdj.cpp - lower adjoints and built-in controls ------------===//
#include "q2/Dialect/Quantum/IR/GateTable.h"
#include "q2/Dialect/Quantum/IR/QuantumOps.h"
#include "q2/Dialect/Quantum/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace q2::quantum {
#define GEN_PASS_DEF_QUANTUMLOWERCTRLADJ
#include "q2/Dialect/Quantum/Transforms/Passes.h.inc"
} // namespace q2::quantum

using namespace mlir;
using namespace q2::quantum;

namespace {
Value constF64(PatternRewriter &rewriter, Location loc, double v) {
  return arith::ConstantFloatOp::create(rewriter, loc, rewriter.getF64Type(),
                                        llvm::APFloat(v));
}

/// Replaces `op` by the same-shaped custom gate `name(params)`, non-adjoint.
void replaceWithGate(PatternRewriter &rewriter, CustomOp op, StringRef name,
                     ValueRange params, ValueRange targets, ValueRange ctrls) {
  SmallVector<Type> tTypes(targets.size(), op.getOutQubits()[0].getType());
  SmallVector<Type> cTypes(ctrls.size(), tTypes[0]);
  auto g = CustomOp::create(rewriter, op.getLoc(), tTypes, cTypes,
                            rewriter.getStringAttr(name), params, targets,
                            ctrls, /*adjoint=*/false);
  rewriter.replaceOp(op, g->getResults());
}

struct LowerCustomAdjoint : OpRewritePattern<CustomOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CustomOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getAdjoint())
      return failure();
    std::optional<GateInfo> gate = lookupGate(op.getGateName());
    if (!gate)
      return failure();
    Location loc = op.getLoc();
    StringRef name = op.getGateName();
    SmallVector<Value> params(op.getParams());
    if (gate->selfInverse) {
      // Same gate.
    } else if (gate->additiveRotation) {
      params[0] = arith::NegFOp::create(rewriter, loc, params[0]);
    } else if (name == "S" || name == "T") {
      params = {constF64(rewriter, loc, name == "S" ? -M_PI / 2 : -M_PI / 4)};
      name = "PhaseShift";
    } else {
      return rewriter.notifyMatchFailure(op, "no adjoint rule");
    }
    replaceWithGate(rewriter, op, name, params, op.getInQubits(),
                    op.getInCtrlQubits());
    return success();
  }
};

/// CNOT(c, t) -> X(t) ctrls(c); CZ likewise. Result order is preserved:
/// the original results (c, t, ctrls...) map to (ctrl0, target, ctrls...).
struct LowerBuiltinControl : OpRewritePattern<CustomOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CustomOp op,
                                PatternRewriter &rewriter) const override {
    StringRef name = op.getGateName();
    if (name != "CNOT" && name != "CZ")
      return failure();
    Value c = op.getInQubits()[0], t = op.getInQubits()[1];
    SmallVector<Value> ctrls{c};
    ctrls.append(op.getInCtrlQubits().begin(), op.getInCtrlQubits().end());
    Type bit = t.getType();
    SmallVector<Type> cTypes(ctrls.size(), bit);
    auto g = CustomOp::create(rewriter, op.getLoc(), TypeRange{bit}, cTypes,
                              rewriter.getStringAttr(name == "CNOT" ? "X" : "Z"),
                              ValueRange{}, ValueRange{t}, ctrls,
                              op.getAdjoint());
    SmallVector<Value> results{g.getOutCtrlQubits()[0], g.getOutQubits()[0]};
    results.append(std::next(g.getOutCtrlQubits().begin()),
                   g.getOutCtrlQubits().end());
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct LowerPauliRotAdjoint : OpRewritePattern<PauliRotOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PauliRotOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getAdjoint())
      return failure();
    Value neg = arith::NegFOp::create(rewriter, op.getLoc(), op.getTheta());
    rewriter.modifyOpInPlace(op, [&] {
      op.getThetaMutable().assign(neg);
      op.setAdjoint(false);
    });
    return success();
  }
};

struct LowerCtrlAdjPass
    : q2::quantum::impl::QuantumLowerCtrlAdjBase<LowerCtrlAdjPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerCustomAdjoint, LowerBuiltinControl, LowerPauliRotAdjoint>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
