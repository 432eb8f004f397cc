//===- CommandLine.cpp - --help that shows q2 first -----------------------===//
#include "q2/Support/CommandLine.h"

#include "llvm/ADT/SmallPtrSet.h"

namespace cl = llvm::cl;

cl::OptionCategory &q2::otherOptionsCategory() {
  static cl::OptionCategory cat(
      "Other options",
      "--help-hidden lists every option (MLIR's and LLVM's too, back-end "
      "flags included); --help-list-hidden without categories.");
  return cat;
}

void q2::organizeHelp(llvm::ArrayRef<const cl::OptionCategory *> shown,
                      cl::SubCommand &sub) {
  llvm::SmallPtrSet<cl::Option *, 32> seen;
  for (auto &entry : cl::getRegisteredOptions(sub)) {
    cl::Option *o = entry.second;
    if (!seen.insert(o).second)
      continue;
    bool keep = false, isGeneric = false;
    for (cl::OptionCategory *c : o->Categories) {
      if (llvm::is_contained(shown, c) || c == &otherOptionsCategory())
        keep = true;
      // The generic options (--help, --version, ...) have their own
      // category; its name is LLVM's.
      if (c->getName() == "Generic Options")
        isGeneric = true;
    }
    if (isGeneric) {
      o->Categories.assign({&otherOptionsCategory()});
      continue;
    }
    if (!keep && o->getOptionHiddenFlag() == cl::NotHidden)
      o->setHiddenFlag(cl::Hidden);
  }
}
