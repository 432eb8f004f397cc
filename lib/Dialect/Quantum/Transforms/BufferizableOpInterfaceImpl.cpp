//===- BufferizableOpInterfaceImpl.cpp - bufferize quantum ops ------------===//
//
// quantum.probs has no tensor operands; its tensor result is a new value, so
// it bufferizes to a fresh allocation that the out-buffer form fills.
// Ownership-based deallocation (or buffer-results-to-out-params at the
// function boundary) then decides who frees it. quantum.gate_table only
// reads its parameter tensor: it takes that tensor's buffer.
//
//===----------------------------------------------------------------------===//
#include "q2/Dialect/Quantum/IR/QuantumOps.h"
#include "q2/Dialect/Quantum/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace q2::quantum;

namespace {
struct ProbsOpInterface
    : BufferizableOpInterface::ExternalModel<ProbsOpInterface, ProbsOp> {
  bool bufferizesToAllocation(Operation *, Value) const { return true; }
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return false;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                      const AnalysisState &) const {
    return {};
  }
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &,
                          BufferizationState &) const {
    auto probs = cast<ProbsOp>(op);
    if (!probs.getProbabilities())
      return success(); // already in out-buffer form
    auto tensorTy = cast<RankedTensorType>(probs.getProbabilities().getType());
    auto memrefTy =
        MemRefType::get(tensorTy.getShape(), tensorTy.getElementType());
    Location loc = op->getLoc();
    Value buffer = memref::AllocOp::create(rewriter, loc, memrefTy);
    ProbsOp::create(rewriter, loc, Type(), probs.getQubits(), probs.getReg(),
                    probs.getRegStartAttr(), probs.getRegCountAttr(), buffer);
    replaceOpWithBufferizedValues(rewriter, op, buffer);
    return success();
  }
};

struct GateTableOpInterface
    : BufferizableOpInterface::ExternalModel<GateTableOpInterface,
                                             GateTableOp> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return true;
  }
  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }
  AliasingValueList getAliasingValues(Operation *, OpOperand &,
                                      const AnalysisState &) const {
    return {};
  }
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto table = cast<GateTableOp>(op);
    Value params = table.getParams();
    if (!params || !isa<TensorType>(params.getType()))
      return success();
    FailureOr<Value> buffer = getBuffer(rewriter, params, options, state);
    if (failed(buffer))
      return failure();
    auto bufferized = GateTableOp::create(
        rewriter, op->getLoc(), table.getOutQubits().getTypes(),
        table.getInQubits(), *buffer, table.getKindsAttr(),
        table.getWordsAttr(), table.getRecordsAttr());
    replaceOpWithBufferizedValues(rewriter, op, bufferized->getResults());
    return success();
  }
};
} // namespace

void q2::quantum::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, QuantumDialect *) {
    ProbsOp::attachInterface<ProbsOpInterface>(*ctx);
    GateTableOp::attachInterface<GateTableOpInterface>(*ctx);
    ctx->loadDialect<memref::MemRefDialect>();
  });
}
