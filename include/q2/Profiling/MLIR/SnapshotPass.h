//===- SnapshotPass.h - q2-snapshot: a memory/IR snapshot pass --*- C++ -*-===//
//
// `q2-snapshot{label=L report=F.json}` can be put anywhere in a
// --pass-pipeline (also of stock mlir-opt through the plugin). Each run
// appends one record to the JSON report F.json: a memory snapshot of this
// process (all layers, see q2/Profiling/Memory.h) and the IR metrics of the
// module it runs on. The module is not changed. `q2-qpe-pipeline{profile=true
// report=F.json}` inserts one before the first stage and one after each.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_PIPELINE_SNAPSHOTPASS_H
#define Q2_PIPELINE_SNAPSHOTPASS_H

#include "mlir/Pass/Pass.h"

#include <memory>
#include <string>

namespace q2::pipeline {

struct Artifacts;

/// The schema of the report files q2-snapshot writes:
/// {"schema": "q2.snapshots/1", "snapshots": [record, ...]}.
inline constexpr const char *kSnapshotSchema = "q2.snapshots/1";

/// A q2-snapshot pass. With `artifacts` (the q2-qpe-pipeline's stage 5/6
/// products), the record also carries the metrics of the LLVM module
/// ("llvm_ir") and of the object ("object") once they exist. An empty
/// `report` makes the pass fail at initialization with a clear error.
std::unique_ptr<mlir::Pass>
createSnapshotPass(std::string label, std::string report,
                   std::shared_ptr<Artifacts> artifacts = nullptr,
                   bool withSmaps = false);

/// Registers `q2-snapshot` (idempotent). Called by registerPipelines().
void registerSnapshotPass();

} // namespace q2::pipeline

#endif // Q2_PIPELINE_SNAPSHOTPASS_H
