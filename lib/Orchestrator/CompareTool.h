//===- CompareTool.h - q2-profile compare's command line (internal) -------===//
#ifndef Q2_ORCHESTRATOR_COMPARETOOL_H
#define Q2_ORCHESTRATOR_COMPARETOOL_H

namespace llvm::cl {
class SubCommand;
class OptionCategory;
} // namespace llvm::cl

namespace q2::orch {
/// The `compare` subcommand and its options (registered on first call).
llvm::cl::SubCommand &compareSubCommand();
llvm::cl::OptionCategory &compareCategory();
/// Runs it after the command line was parsed: 0 no regression, 1
/// regression, 2 error.
int runCompareCommand(const char *argv0);
} // namespace q2::orch

#endif // Q2_ORCHESTRATOR_COMPARETOOL_H
