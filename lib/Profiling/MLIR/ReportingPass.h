//===- ReportingPass.h - Option checks and errors of q2's report passes ---===//
//
// Internal to q2-profile and q2-snapshot: both check their options when the
// pipeline is parsed (before any pass runs) and again when built in C++,
// and report errors at the module's location with the pass's own prefix.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_LIB_PROFILING_MLIR_REPORTINGPASS_H
#define Q2_LIB_PROFILING_MLIR_REPORTINGPASS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/Error.h"

#include <string>

namespace q2::profiling::detail {

/// A module pass whose options `Derived::checkOptions()` (an llvm::Error
/// whose message is the whole one-line diagnostic) validates.
template <typename Derived>
struct ReportingPass
    : mlir::PassWrapper<Derived, mlir::OperationPass<mlir::ModuleOp>> {
  using Base = ReportingPass;
  using mlir::PassWrapper<Derived,
                          mlir::OperationPass<mlir::ModuleOp>>::PassWrapper;

  mlir::LogicalResult initializeOptions(
      llvm::StringRef options,
      llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)>
          errorHandler) override {
    if (mlir::failed(mlir::Pass::initializeOptions(options, errorHandler)))
      return mlir::failure();
    // Reject at pipeline-parse time, before any pass has run.
    if (llvm::Error e = self().checkOptions())
      return errorHandler(llvm::toString(std::move(e)));
    return mlir::success();
  }

  mlir::LogicalResult initialize(mlir::MLIRContext *ctx) override {
    // The same checks for passes built in C++.
    if (llvm::Error e = self().checkOptions())
      return mlir::emitError(mlir::UnknownLoc::get(ctx))
             << llvm::toString(std::move(e));
    return mlir::success();
  }

  /// `prefix` + `message` at the module's location (an op diagnostic would
  /// make mlir-opt attach a dump of the whole module), and the pass fails.
  void failAtModule(const llvm::Twine &prefix, const llvm::Twine &message) {
    mlir::emitError(this->getOperation().getLoc()) << prefix << message;
    this->signalPassFailure();
  }

private:
  const Derived &self() const { return static_cast<const Derived &>(*this); }
};

} // namespace q2::profiling::detail

#endif // Q2_LIB_PROFILING_MLIR_REPORTINGPASS_H
