//===- GatePeepholes.cpp - cancel inverse gates, merge rotations ----------===//
//
// Both rewrites look at a gate whose qubit operands are exactly the results
// of one preceding gate (same targets in the same order, same controls), i.e.
// two gates adjacent on every wire they touch.
//
//===----------------------------------------------------------------------===//
#include "q2/Dialect/Quantum/IR/GateTable.h"
#include "q2/Dialect/Quantum/IR/QuantumOps.h"
#include "q2/Dialect/Quantum/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace q2::quantum {
#define GEN_PASS_DEF_QUANTUMCANCELINVERSES
#define GEN_PASS_DEF_QUANTUMMERGEROTATIONS
#include "q2/Dialect/Quantum/Transforms/Passes.h.inc"
} // namespace q2::quantum

using namespace mlir;
using namespace q2::quantum;

/// Returns the gate of the same kind that produces exactly `op`'s qubit
/// operands (in order) with no other users, or null.
template <typename OpT>
static OpT getAdjacentPredecessor(OpT op) {
  if (op.getInQubits().empty())
    return nullptr;
  auto prev = op.getInQubits().front().template getDefiningOp<OpT>();
  if (!prev || prev.getOutQubits().size() != op.getInQubits().size() ||
      prev.getOutCtrlQubits().size() != op.getInCtrlQubits().size())
    return nullptr;
  for (auto [in, out] : llvm::zip(op.getInQubits(), prev.getOutQubits()))
    if (in != out)
      return nullptr;
  for (auto [in, out] : llvm::zip(op.getInCtrlQubits(), prev.getOutCtrlQubits()))
    if (in != out)
      return nullptr;
  for (Value r : prev->getResults())
    if (!r.hasOneUse())
      return nullptr;
  return prev;
}

/// Replaces `second`'s results by `first`'s qubit operands and erases both.
template <typename OpT>
static void eraseGatePair(PatternRewriter &rewriter, OpT first, OpT second) {
  SmallVector<Value> inputs(first.getInQubits());
  inputs.append(first.getInCtrlQubits().begin(), first.getInCtrlQubits().end());
  rewriter.replaceOp(second, inputs);
  rewriter.eraseOp(first);
}

namespace {
struct CancelCustomPair : OpRewritePattern<CustomOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CustomOp op,
                                PatternRewriter &rewriter) const override {
    CustomOp prev = getAdjacentPredecessor(op);
    if (!prev || prev.getGateName() != op.getGateName() ||
        prev.getParams() != op.getParams())
      return failure();
    std::optional<GateInfo> gate = lookupGate(op.getGateName());
    if (!gate)
      return failure();
    bool inverse = gate->selfInverse || prev.getAdjoint() != op.getAdjoint();
    if (!inverse)
      return failure();
    eraseGatePair(rewriter, prev, op);
    return success();
  }
};

struct CancelPauliRotPair : OpRewritePattern<PauliRotOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PauliRotOp op,
                                PatternRewriter &rewriter) const override {
    PauliRotOp prev = getAdjacentPredecessor(op);
    if (!prev || prev.getPauliWord() != op.getPauliWord() ||
        prev.getTheta() != op.getTheta() ||
        prev.getAdjoint() == op.getAdjoint())
      return failure();
    eraseGatePair(rewriter, prev, op);
    return success();
  }
};

/// Angle of a rotation with its adjoint flag folded in.
static Value signedAngle(PatternRewriter &rewriter, Location loc, Value angle,
                         bool adjoint) {
  if (!adjoint)
    return angle;
  return rewriter.createOrFold<arith::NegFOp>(loc, angle);
}

/// Shared tail of both merges: a constant-zero angle removes the gate.
template <typename OpT>
static LogicalResult finishMerge(PatternRewriter &rewriter, OpT prev, OpT op,
                                 Value angle,
                                 function_ref<OpT(Value)> buildMerged) {
  if (matchPattern(angle, m_AnyZeroFloat())) {
    eraseGatePair(rewriter, prev, op);
    return success();
  }
  OpT merged = buildMerged(angle);
  rewriter.replaceOp(op, merged->getResults());
  rewriter.eraseOp(prev);
  return success();
}

struct MergeCustomRotations : OpRewritePattern<CustomOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CustomOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<GateInfo> gate = lookupGate(op.getGateName());
    if (!gate || !gate->additiveRotation)
      return failure();
    CustomOp prev = getAdjacentPredecessor(op);
    if (!prev || prev.getGateName() != op.getGateName())
      return failure();
    Location loc = rewriter.getFusedLoc({prev.getLoc(), op.getLoc()});
    Value a = signedAngle(rewriter, loc, prev.getParams()[0], prev.getAdjoint());
    Value b = signedAngle(rewriter, loc, op.getParams()[0], op.getAdjoint());
    Value sum = rewriter.createOrFold<arith::AddFOp>(loc, a, b);
    return finishMerge<CustomOp>(rewriter, prev, op, sum, [&](Value angle) {
      return CustomOp::create(rewriter, loc, prev.getOutQubits().getTypes(),
                              prev.getOutCtrlQubits().getTypes(),
                              prev.getGateNameAttr(), ValueRange{angle},
                              prev.getInQubits(), prev.getInCtrlQubits(),
                              /*adjoint=*/false);
    });
  }
};

struct MergePauliRotations : OpRewritePattern<PauliRotOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PauliRotOp op,
                                PatternRewriter &rewriter) const override {
    PauliRotOp prev = getAdjacentPredecessor(op);
    if (!prev || prev.getPauliWord() != op.getPauliWord())
      return failure();
    Location loc = rewriter.getFusedLoc({prev.getLoc(), op.getLoc()});
    Value a = signedAngle(rewriter, loc, prev.getTheta(), prev.getAdjoint());
    Value b = signedAngle(rewriter, loc, op.getTheta(), op.getAdjoint());
    Value sum = rewriter.createOrFold<arith::AddFOp>(loc, a, b);
    return finishMerge<PauliRotOp>(rewriter, prev, op, sum, [&](Value angle) {
      return PauliRotOp::create(rewriter, loc, prev.getOutQubits().getTypes(),
                                prev.getOutCtrlQubits().getTypes(),
                                prev.getPauliWordAttr(), angle,
                                prev.getInQubits(), prev.getInCtrlQubits(),
                                /*adjoint=*/false);
    });
  }
};

/// Both passes apply their pattern set greedily to whatever op they run on.
template <typename Derived, template <typename> class Base,
          void (*populate)(RewritePatternSet &)>
struct PeepholePass : Base<Derived> {
  void runOnOperation() override {
    RewritePatternSet patterns(&this->getContext());
    populate(patterns);
    if (failed(applyPatternsGreedily(this->getOperation(), std::move(patterns))))
      this->signalPassFailure();
  }
};

struct CancelInversesPass
    : PeepholePass<CancelInversesPass,
                   q2::quantum::impl::QuantumCancelInversesBase,
                   populateCancelInversesPatterns> {};
struct MergeRotationsPass
    : PeepholePass<MergeRotationsPass,
                   q2::quantum::impl::QuantumMergeRotationsBase,
                   populateMergeRotationsPatterns> {};
} // namespace

void q2::quantum::populateCancelInversesPatterns(RewritePatternSet &patterns) {
  patterns.add<CancelCustomPair, CancelPauliRotPair>(patterns.getContext());
}

void q2::quantum::populateMergeRotationsPatterns(RewritePatternSet &patterns) {
  patterns.add<MergeCustomRotations, MergePauliRotations>(
      patterns.getContext());
}
