//===- ReportChecks.h - What a readable report must hold --------*- C++ -*-===//
//
// Values the field lists (ReportFields.h) read but a report must not hold:
// a time that is null (NaN when written) or negative. json::fromValue calls
// checkRecord after reading each record, so readReport, the sweep's point
// records, Python's from_json and every other reader of these types refuse
// the same reports, naming file and key
// ("r.json: phase_b.stages[1].wall_s: null where a time in seconds belongs").
// Byte counts need no check: they are unsigned, and the reader refuses a
// negative integer.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_PROFILING_REPORTCHECKS_H
#define Q2_PROFILING_REPORTCHECKS_H

#include "q2/Profiling/Report.h"
#include "q2/Support/JSON.h"

namespace q2::profiling {

llvm::Error checkRecord(const json::Cursor &c, const RUsage &r);
llvm::Error checkRecord(const json::Cursor &c, const MemorySnapshot &r);
llvm::Error checkRecord(const json::Cursor &c, const TimelineSample &r);
llvm::Error checkRecord(const json::Cursor &c, const PassRecord &r);
llvm::Error checkRecord(const json::Cursor &c, const StageRecord &r);
llvm::Error checkRecord(const json::Cursor &c, const SessionRecord &r);
llvm::Error checkRecord(const json::Cursor &c, const PhaseARecord &r);

} // namespace q2::profiling

#endif // Q2_PROFILING_REPORTCHECKS_H
