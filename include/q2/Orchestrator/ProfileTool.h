//===- ProfileTool.h - q2-profile as a library call -------------*- C++ -*-===//
//
// tools/q2-profile is one call of q2ProfileMain(). Embedders (the Python
// module) call measure(), runPoint(), runSweep() and loadResults() directly
// (Measure.h, Sweep.h).
//
//===----------------------------------------------------------------------===//
#ifndef Q2_ORCHESTRATOR_PROFILETOOL_H
#define Q2_ORCHESTRATOR_PROFILETOOL_H

namespace q2::orch {

/// q2-profile's main: parses the command line (llvm::cl subcommands
/// measure, run, sweep and merge; `q2-profile <subcommand> --help`), runs
/// the subcommand and returns the exit status: 0 when done (a measured
/// command that failed, or failed points, are results, not errors), 2 for a
/// refusal or an error (one line on stderr), 130 when interrupted by
/// SIGINT, SIGTERM or SIGHUP (the measured tree is stopped first; measure
/// still writes its record, a sweep keeps its finished points).
int q2ProfileMain(int argc, char **argv);

} // namespace q2::orch

#endif // Q2_ORCHESTRATOR_PROFILETOOL_H
