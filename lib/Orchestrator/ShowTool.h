//===- ShowTool.h - q2-profile show / html command lines (internal) -------===//
#ifndef Q2_ORCHESTRATOR_SHOWTOOL_H
#define Q2_ORCHESTRATOR_SHOWTOOL_H

#include <vector>

namespace llvm::cl {
class SubCommand;
class OptionCategory;
} // namespace llvm::cl

namespace q2::orch {
/// The `show` and `html` subcommands and their options (registered on first
/// call).
llvm::cl::SubCommand &showSubCommand();
llvm::cl::SubCommand &htmlSubCommand();
std::vector<llvm::cl::OptionCategory *> showCategories();
/// Run them after the command line was parsed: 0 done, 2 error or refusal.
int runShowCommand(const char *argv0);
int runHtmlCommand(const char *argv0);
} // namespace q2::orch

#endif // Q2_ORCHESTRATOR_SHOWTOOL_H
