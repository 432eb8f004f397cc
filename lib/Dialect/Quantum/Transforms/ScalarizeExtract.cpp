//===- ScalarizeExtract.cpp - extract(elementwise) -> scalar math ---------===//
#include "q2/Dialect/Quantum/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace q2::quantum {
#define GEN_PASS_DEF_SCALARIZEELEMENTWISEEXTRACT
#include "q2/Dialect/Quantum/Transforms/Passes.h.inc"
} // namespace q2::quantum

using namespace mlir;

namespace {
struct ScalarizeExtract : OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractOp op,
                                PatternRewriter &rewriter) const override {
    auto generic = op.getTensor().getDefiningOp<linalg::GenericOp>();
    if (!generic || generic.getNumLoops() != 1 ||
        generic.getNumParallelLoops() != 1 || op.getIndices().size() != 1 ||
        !llvm::all_of(generic.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isIdentity(); }) ||
        !generic.hasPureTensorSemantics())
      return failure();
    // The body may only use its block arguments and values from above.
    Block &body = generic.getRegion().front();
    if (llvm::any_of(body.without_terminator(), [](Operation &o) {
          return isa<linalg::IndexOp>(o) || o.getNumRegions() != 0;
        }))
      return failure();
    Value idx = op.getIndices()[0];
    IRMapping map;
    for (OpOperand *in : generic.getDpsInputOperands())
      map.map(body.getArgument(in->getOperandNumber()),
              tensor::ExtractOp::create(rewriter, op.getLoc(), in->get(), idx));
    for (OpOperand &init : generic.getDpsInitsMutable())
      map.map(body.getArgument(init.getOperandNumber()),
              tensor::ExtractOp::create(rewriter, op.getLoc(), init.get(), idx));
    for (Operation &o : body.without_terminator())
      rewriter.clone(o, map);
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    unsigned resultNo = cast<OpResult>(op.getTensor()).getResultNumber();
    rewriter.replaceOp(op, map.lookup(yield.getOperand(resultNo)));
    return success();
  }
};

struct ScalarizePass
    : q2::quantum::impl::ScalarizeElementwiseExtractBase<ScalarizePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ScalarizeExtract>(&getContext());
    // Scalarized extracts may read from another generic (a cascade: the
    // greedy driver, not a walk), but the IR has one block per region here:
    // region simplification would only walk it again after every iteration.
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      signalPassFailure();
  }
};
} // namespace
