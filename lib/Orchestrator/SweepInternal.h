//===- SweepInternal.h - what the sweep's files share (private) -*- C++ -*-===//
//
// Paths of a point in the output directory, its lock, a point's record
// after another process ran it: used by Sweep.cpp (points),
// SweepScheduler.cpp (runSweep) and SweepResults.cpp (records, summary).
//
//===----------------------------------------------------------------------===//
#ifndef Q2_LIB_ORCHESTRATOR_SWEEPINTERNAL_H
#define Q2_LIB_ORCHESTRATOR_SWEEPINTERNAL_H

#include "q2/Orchestrator/Sweep.h"
#include "q2/Support/FileIO.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace q2::orch::sweep_detail {

std::string joinPath(llvm::StringRef a, llvm::StringRef b,
                     llvm::StringRef c = "");

/// OUT/points/<key>.
std::string pointDir(const SweepSpec &spec, const PointId &id);
/// Held while a process runs (or deletes) the point.
llvm::Expected<q2::FileLock> lockPoint(const SweepSpec &spec,
                                       const PointId &id);
/// When runPoint could not run a point because another process holds it
/// (a --only sweep on the same directory), waits for that process and
/// takes the result it wrote. Other errors stay errors.
llvm::Expected<PointResult> resultOfConcurrentRun(const SweepSpec &spec,
                                                  const PointId &id,
                                                  llvm::Error why);
/// Removes, in Dir and its subdirectories, temporaries of atomic writes
/// whose writer is dead.
void removeStaleTemporariesIn(const std::string &dir, int depth = 2);
const Molecule *findMolecule(const SweepSpec &spec, const std::string &name);
/// S quoted for a POSIX shell (as it is when only safe characters occur).
std::string shellQuote(const std::string &s);
/// The text of a file (q2::readInputFile: regular files only, at most
/// MaxBytes).
llvm::Expected<std::string>
readTextFile(llvm::StringRef path,
             uint64_t maxBytes = q2::kDefaultMaxInputBytes);
/// OUT/points/<key>/result.json, read; nullopt when it is missing or
/// unreadable (then the point is run again).
std::optional<PointRecord> readResultIfAny(const SweepSpec &spec,
                                           const PointId &id);
/// What every executor does first: validates the spec, creates
/// OUT/points, takes OUT/.lock and writes OUT/sweep.json (neither for a
/// sweep restricted by `only`). The lock is held while the result lives.
llvm::Expected<std::optional<q2::FileLock>>
openSweepDirectory(const SweepSpec &spec);
/// The identifying fields of a point's record.
PointRecord recordFor(const PointId &id, const Molecule *mol);

} // namespace q2::orch::sweep_detail

#endif // Q2_LIB_ORCHESTRATOR_SWEEPINTERNAL_H
