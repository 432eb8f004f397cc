//===- SnapshotPass.h - q2-snapshot: a memory/IR snapshot pass --*- C++ -*-===//
//
// `q2-snapshot{label=L report=F.json}` can be put anywhere in a
// --pass-pipeline (also of stock mlir-opt through the plugin). Each run
// appends one record to the JSON report F.json (schema q2.snapshots/1,
// q2/Profiling/Report.h): a memory snapshot of this process (all layers, see
// q2/Profiling/Memory.h) and the IR metrics of the module it runs on. The
// module is not changed.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_PROFILING_MLIR_SNAPSHOTPASS_H
#define Q2_PROFILING_MLIR_SNAPSHOTPASS_H

#include "q2/Profiling/Report.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace mlir {
class Operation;
class Pass;
} // namespace mlir

namespace q2::profiling {

/// A snapshot of this process plus the IR metrics of `op` (may be null):
/// what one q2-snapshot run records.
llvm::Expected<SnapshotEntry> snapshotWithIR(llvm::StringRef label,
                                             mlir::Operation *op,
                                             bool withSmaps = false);

/// A q2-snapshot pass. An empty `report` makes the pass fail at
/// initialization with a clear error.
std::unique_ptr<mlir::Pass> createSnapshotPass(std::string label,
                                               std::string report,
                                               bool withSmaps = false);

/// Registers `q2-snapshot` (idempotent).
void registerSnapshotPass();

} // namespace q2::profiling

#endif // Q2_PROFILING_MLIR_SNAPSHOTPASS_H
