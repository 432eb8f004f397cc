//===- CommandLine.h - --help that shows q2 first ---------------*- C++ -*-===//
//
// The tools link libLLVM.so and libMLIR.so, which register hundreds of
// options (AMDGPU, ARM, BPF, ... back-end flags). organizeHelp() leaves in
// `--help` only the tool's own categories and moves the generic options
// (--help, --version, ...) into a last category; every other option gets
// cl::Hidden, so `--help-hidden` still lists it and it still parses.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_SUPPORT_COMMANDLINE_H
#define Q2_SUPPORT_COMMANDLINE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/CommandLine.h"

namespace q2 {

/// The category the generic options end in ("Other options: help, version;
/// --help-hidden lists every option, LLVM's back-end flags included"). Its
/// name sorts after the tools' own category names, which LLVM prints in name
/// order: name those starting with an upper-case letter before 'O'.
llvm::cl::OptionCategory &otherOptionsCategory();

/// Hides (cl::Hidden) every option of `sub` outside `shown` and the generic
/// ones, and moves the generic ones to otherOptionsCategory(). Call after
/// registering every option and before parsing.
void organizeHelp(llvm::ArrayRef<const llvm::cl::OptionCategory *> shown,
                  llvm::cl::SubCommand &sub = llvm::cl::SubCommand::getTopLevel());

} // namespace q2

#endif // Q2_SUPPORT_COMMANDLINE_H
