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

#include <string>

namespace q2::orch::sweep_detail {

std::string joinPath(llvm::StringRef A, llvm::StringRef B,
                     llvm::StringRef C = "");

/// OUT/points/<key>.
std::string pointDir(const SweepSpec &Spec, const PointId &Id);
/// Held while a process runs (or deletes) the point.
llvm::Expected<q2::FileLock> lockPoint(const SweepSpec &Spec,
                                       const PointId &Id);
/// When runPoint could not run a point because another process holds it
/// (a --only sweep on the same directory), waits for that process and
/// takes the result it wrote. Other errors stay errors.
llvm::Expected<PointResult> resultOfConcurrentRun(const SweepSpec &Spec,
                                                  const PointId &Id,
                                                  llvm::Error Why);
/// Removes, in Dir and its subdirectories, temporaries of atomic writes
/// whose writer is dead.
void removeStaleTemporariesIn(const std::string &Dir, int Depth = 2);
const Molecule *findMolecule(const SweepSpec &Spec, const std::string &Name);
/// The identifying fields of a point's record.
PointRecord recordFor(const PointId &Id, const Molecule *Mol);

} // namespace q2::orch::sweep_detail

#endif // Q2_LIB_ORCHESTRATOR_SWEEPINTERNAL_H
