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
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace q2::quantum {
#define GEN_PASS_DEF_QUANTUMCANCELINVERSES
#define GEN_PASS_DEF_QUANTUMMERGEROTATIONS
#include "q2/Dialect/Quantum/Transforms/Passes.h.inc"
} // namespace q2::quantum

using namespace mlir;
using namespace q2::quantum;

/// Returns the gate of the same kind that produces exactly `op`'s qubit
/// operands (in order) with no other users, or null.
static QuantumGate getAdjacentPredecessor(QuantumGate op) {
  if (op.getTargetOperands().empty())
    return nullptr;
  auto prev = op.getTargetOperands().front().getDefiningOp<QuantumGate>();
  if (!prev || !op.isSameKind(prev) ||
      prev.getTargetResults().size() != op.getTargetOperands().size() ||
      prev.getCtrlResults().size() != op.getCtrlOperands().size())
    return nullptr;
  for (auto [in, out] : llvm::zip(op.getTargetOperands(), prev.getTargetResults()))
    if (in != out)
      return nullptr;
  for (auto [in, out] : llvm::zip(op.getCtrlOperands(), prev.getCtrlResults()))
    if (in != out)
      return nullptr;
  for (Value r : prev->getResults())
    if (!r.hasOneUse())
      return nullptr;
  return prev;
}

/// Replaces `second`'s results by `first`'s qubit operands and erases both.
static void eraseGatePair(PatternRewriter &rewriter, QuantumGate first,
                          QuantumGate second) {
  rewriter.replaceOp(second, first.getAllInQubits());
  rewriter.eraseOp(first);
}

namespace {
struct CancelInversePair : OpInterfaceRewritePattern<QuantumGate> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(QuantumGate op,
                                PatternRewriter &rewriter) const override {
    QuantumGate prev = getAdjacentPredecessor(op);
    if (!prev || !op.cancels(prev))
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

struct MergeRotations : OpInterfaceRewritePattern<QuantumGate> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;
  LogicalResult matchAndRewrite(QuantumGate op,
                                PatternRewriter &rewriter) const override {
    if (!op.isAdditiveRotation() || op.getGateParams().size() != 1)
      return failure();
    QuantumGate prev = getAdjacentPredecessor(op);
    if (!prev)
      return failure();
    Location loc = rewriter.getFusedLoc({prev.getLoc(), op.getLoc()});
    Value a = signedAngle(rewriter, loc, prev.getGateParams()[0],
                          prev.isAdjoint());
    Value b = signedAngle(rewriter, loc, op.getGateParams()[0], op.isAdjoint());
    Value sum = rewriter.createOrFold<arith::AddFOp>(loc, a, b);
    // A constant-zero angle removes both gates.
    if (matchPattern(sum, m_AnyZeroFloat())) {
      eraseGatePair(rewriter, prev, op);
      return success();
    }
    Operation *merged = prev.cloneWithAngle(rewriter, loc, sum);
    rewriter.replaceOp(op, merged->getResults());
    rewriter.eraseOp(prev);
    return success();
  }
};

/// Both passes apply their pattern set greedily to whatever op they run on.
template <typename Derived, template <typename> class Base,
          void (*populate)(RewritePatternSet &)>
struct PeepholePass : Base<Derived> {
  void runOnOperation() override {
    RewritePatternSet patterns(&this->getContext());
    populate(patterns);
    // One forward walk reaches the fixpoint: a gate is matched against its
    // current predecessor, whose own predecessors were all visited before,
    // and a rewrite only makes later gates adjacent (a cancelled pair joins
    // the gates around it; a merged gate keeps its predecessor, already
    // tried). The greedy driver found the same pairs at twice the cost
    // (worklist, folding, dead-op checks on every op of the program).
    walkAndApplyPatterns(this->getOperation(), std::move(patterns));
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
  patterns.add<CancelInversePair>(patterns.getContext());
}

void q2::quantum::populateMergeRotationsPatterns(RewritePatternSet &patterns) {
  patterns.add<MergeRotations>(patterns.getContext());
}
