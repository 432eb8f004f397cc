//===- Unroll.cpp - fully unroll constant-trip-count scf.for --------------===//
#include "q2/Dialect/Quantum/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace q2::quantum {
#define GEN_PASS_DEF_QUANTUMUNROLL
#include "q2/Dialect/Quantum/Transforms/Passes.h.inc"
} // namespace q2::quantum

using namespace mlir;

namespace {
struct UnrollPass : q2::quantum::impl::QuantumUnrollBase<UnrollPass> {
  using Base::Base;
  void runOnOperation() override {
    // Innermost first (post-order), repeated because unrolling an outer loop
    // can make inner bounds constant.
    bool changed = true;
    bool folded = false;
    // Operations of the function, kept up to date as loops are unrolled:
    // each unroll is checked against max-ops before it is done (the size
    // is known, building it may not fit in memory).
    int64_t numOps = 0;
    getOperation()->walk([&](Operation *) { ++numOps; });
    while (changed) {
      changed = false;
      SmallVector<scf::ForOp> loops;
      getOperation()->walk([&](scf::ForOp loop) { loops.push_back(loop); });
      for (scf::ForOp loop : loops) {
        std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
        std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
        std::optional<int64_t> st = getConstantIntValue(loop.getStep());
        if (!lb || !ub || !st || *st <= 0)
          continue;
        int64_t trips = *ub > *lb ? (*ub - *lb + *st - 1) / *st : 0;
        if (trips > maxTripCount) {
          loop.emitError("quantum-unroll: loop has ")
              << trips << " iterations, above max-trip-count="
              << static_cast<int64_t>(maxTripCount);
          return signalPassFailure();
        }
        int64_t bodyOps = 0;
        loop.getBody()->walk([&](Operation *) { ++bodyOps; });
        int64_t after = numOps + (trips - 1) * bodyOps;
        if (trips > 1 && (bodyOps > (maxOps - numOps) / (trips - 1) ||
                          after > maxOps)) {
          loop.emitError("quantum-unroll: unrolling this loop (")
              << trips << " iterations of " << bodyOps
              << " operations) would make the function hold more than "
              << static_cast<int64_t>(maxOps) << " operations (max-ops)";
          return signalPassFailure();
        }
        numOps = std::max<int64_t>(after, 0);
        // loopUnrollFull leaves zero-trip loops in place (it reports
        // success without erasing them), so this walk would never finish.
        if (trips == 0) {
          loop.replaceAllUsesWith(loop.getInitArgs());
          loop.erase();
        } else if (failed(loopUnrollFull(loop))) {
          loop.emitError("quantum-unroll: cannot unroll this loop");
          return signalPassFailure();
        }
        changed = true;
        folded = false;
        break; // the walk list is stale now
      }
      // Bounds computed from an unrolled induction variable are constants
      // only once folded: fold (no patterns, just op folders) and retry.
      if (!changed && !loops.empty() && !folded) {
        (void)applyPatternsGreedily(getOperation(),
                                    RewritePatternSet(&getContext()));
        folded = changed = true;
      }
    }
  }
};
} // namespace
