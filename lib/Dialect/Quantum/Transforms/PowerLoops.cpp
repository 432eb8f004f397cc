//===- PowerLoops.cpp - loops that repeat the same gates -> quantum.power -===//
#include "q2/Dialect/Quantum/IR/QuantumOps.h"
#include "q2/Dialect/Quantum/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace q2::quantum {
#define GEN_PASS_DEF_QUANTUMPOWERLOOPS
#include "q2/Dialect/Quantum/Transforms/Passes.h.inc"
} // namespace q2::quantum

using namespace mlir;
using namespace q2::quantum;

namespace {

/// Gates in the body (nested powers count their bodies), or -1 when the body
/// holds something that may not be repeated as a unitary.
int64_t repeatableGates(Block &body) {
  int64_t gates = 0;
  for (Operation &op : body.without_terminator()) {
    if (isa<QuantumGate>(op)) {
      ++gates;
      continue;
    }
    if (auto table = dyn_cast<GateTableOp>(op)) {
      gates += table.getNumGates();
      continue;
    }
    if (auto nested = dyn_cast<PowerOp>(op)) {
      int64_t g = repeatableGates(nested.getBody().front());
      if (g < 0)
        return -1;
      gates += g;
      continue;
    }
    if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op))
      return -1;
  }
  return gates;
}

/// Whether every iteration of `loop` applies the same unitary.
bool isPowerable(scf::ForOp loop, unsigned minGates) {
  if (!loop.getInductionVar().use_empty() || loop.getInitArgs().empty())
    return false;
  for (Value v : loop.getInitArgs())
    if (!isa<BitType>(v.getType()))
      return false;
  int64_t gates = repeatableGates(*loop.getBody());
  return gates >= 1 && gates >= int64_t(minGates);
}

void powerLoop(IRRewriter &rewriter, scf::ForOp loop) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  // Trip count = max(0, ceildiv(ub - lb, step)); a non-positive step is not
  // a loop scf.for executes (its verifier requires step > 0 when constant).
  Value span = arith::SubIOp::create(rewriter, loc, loop.getUpperBound(),
                                     loop.getLowerBound());
  Value trips = span;
  if (!matchPattern(loop.getStep(), m_One()))
    trips = arith::CeilDivSIOp::create(rewriter, loc, span, loop.getStep());
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value count = arith::MaxSIOp::create(rewriter, loc, trips, zero);

  auto power = PowerOp::create(rewriter, loc, count, loop.getInitArgs());
  Block &body = power.getBody().front();
  Block *loopBody = loop.getBody();
  auto yield = cast<scf::YieldOp>(loopBody->getTerminator());
  // Move the loop body (the qubit iteration arguments become the power
  // body's arguments; the induction variable has no uses).
  for (auto [iterArg, arg] :
       llvm::zip(loop.getRegionIterArgs(), body.getArguments()))
    rewriter.replaceAllUsesWith(iterArg, arg);
  body.getOperations().splice(body.end(), loopBody->getOperations(),
                              loopBody->begin(), Block::iterator(yield));
  rewriter.setInsertionPointToEnd(&body);
  YieldOp::create(rewriter, yield.getLoc(), yield.getOperands());
  rewriter.replaceOp(loop, power.getResults());
}

struct PowerLoopsPass
    : q2::quantum::impl::QuantumPowerLoopsBase<PowerLoopsPass> {
  using Base::Base;
  void runOnOperation() override {
    // Post-order: inner loops become powers first, which makes the loops
    // around them powerable.
    SmallVector<scf::ForOp> loops;
    getOperation()->walk<WalkOrder::PostOrder>(
        [&](scf::ForOp loop) { loops.push_back(loop); });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops)
      if (isPowerable(loop, minGates))
        powerLoop(rewriter, loop);
  }
};
} // namespace
