//===- q2-profile.cpp - Isolated, budgeted runs and resumable sweeps ------===//
//
// Subcommands measure, run, sweep, merge: see `q2-profile --help` and
// docs/sweeps.md. Everything is in the Q2Orchestrator library.
//
//===----------------------------------------------------------------------===//
#include "q2/Orchestrator/ProfileTool.h"

int main(int argc, char **argv) { return q2::orch::q2ProfileMain(argc, argv); }
