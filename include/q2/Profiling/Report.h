//===- Report.h - JSON report building blocks -------------------*- C++ -*-===//
//
// Helpers for writing profiling results as JSON files that are never left
// truncated: every write goes to a temporary file that is renamed over the
// target. Used by the driver's --report and by the q2-snapshot plugin pass,
// which appends one record per invocation to a report file.
//
//===----------------------------------------------------------------------===//

#ifndef Q2_PROFILING_REPORT_H
#define Q2_PROFILING_REPORT_H

#include "q2/Profiling/IRMetrics.h"

#include "llvm/ADT/ArrayRef.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

namespace mlir {
class Operation;
} // namespace mlir

namespace q2::profiling {

struct StageRecord;
struct PassRecord;

/// Writes `value` to `path` atomically (temporary file + rename; "-" writes
/// to stdout). `indent` < 0 writes compact JSON.
llvm::Error writeJSONAtomically(llvm::StringRef path,
                                const nlohmann::json &value, int indent = 2);

/// Reads a JSON file. Errors name the file (and the parse position).
llvm::Expected<nlohmann::json> readJSONFile(llvm::StringRef path);

/// Appends `record` to the array `arrayKey` of the JSON object in `path`,
/// creating {"schema": schema, arrayKey: [record]} if the file does not
/// exist. Refuses (without touching the file) a file that is not such an
/// object. Read-modify-write: concurrent appenders to one file must be
/// serialized by the caller.
llvm::Error appendJSONRecord(llvm::StringRef path, const nlohmann::json &record,
                             llvm::StringRef arrayKey = "snapshots",
                             llvm::StringRef schema = "q2.snapshots/1");

/// A snapshot of this process plus the IR metrics of `op` (may be null):
/// MemorySnapshot::toJSON() with an added "ir" member. What the q2-snapshot
/// pass records.
llvm::Expected<nlohmann::json>
snapshotWithIR(llvm::StringRef label, mlir::Operation *op,
               const IRMetricsOptions &options = {}, bool withSmaps = false);

/// A fixed-width table, one row per stage: wall, CPU, RSS after, stage peak
/// (with "hwm" or "smp" for its source), heap after, and, for stages whose
/// `ir` is set, IR KB, lines, ops and amplification (IR bytes / IR bytes of
/// the previous stage that has IR).
std::string formatStageTable(llvm::ArrayRef<StageRecord> stages);

/// The `top` most expensive non-adaptor passes by wall time: pass, op, stage,
/// wall ms, CPU ms, RSS delta MB and (if measured) IR KB after.
std::string formatPassTable(llvm::ArrayRef<PassRecord> passes, size_t top = 20);

} // namespace q2::profiling

#endif // Q2_PROFILING_REPORT_H
