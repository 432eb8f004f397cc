//===- ProgramRequestFlags.h - ProgramRequest on a command line -*- C++ -*-===//
//
// The command-line flags of ProgramRequest.def, for the tool mains (q2-qpe
// takes every option, q2-opt those of its Hamiltonian inputs). The object
// owns its cl::opts: a main creates it before parsing and reads it after.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_QPE_PROGRAMREQUESTFLAGS_H
#define Q2_QPE_PROGRAMREQUESTFLAGS_H

#include "q2/QPE/ProgramRequest.h"

#include "llvm/Support/CommandLine.h"

#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace q2::qpe {

class ProgramRequestFlags {
public:
  /// Registers --FLAG in `cat` for every option, or only for those named in
  /// `only` (flag names); each help is `helpPrefix` + the option's help and
  /// default (ProgramOptionInfo::helpWithDefault).
  explicit ProgramRequestFlags(llvm::cl::OptionCategory &cat,
                               llvm::ArrayRef<llvm::StringRef> only = {},
                               llvm::StringRef helpPrefix = "");
  ~ProgramRequestFlags();

  /// The defaults with the given flags applied (ProgramRequest::set; not
  /// validated). Errors name the flag.
  llvm::Expected<ProgramRequest> request() const;
  /// Every registered flag as ("--n-est", its cl::Option), in the order of
  /// ProgramRequest.def.
  std::vector<std::pair<std::string, const llvm::cl::Option *>> flags() const;

private:
  struct Flag;
  std::deque<Flag> flagList;
};

} // namespace q2::qpe

#endif // Q2_QPE_PROGRAMREQUESTFLAGS_H
