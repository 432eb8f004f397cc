//===- PlotScript.h - Running q2's matplotlib scripts (internal) ----------===//
//
// compare --png and show --png draw with a Python script installed next to
// q2-profile (<bin>/../share/q2/...), run by an interpreter that has
// matplotlib. One way to find both and to say what is missing.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_ORCHESTRATOR_PLOTSCRIPT_H
#define Q2_ORCHESTRATOR_PLOTSCRIPT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace q2::orch {

/// Runs `python` (default /usr/bin/python3, else python3 on PATH) on the
/// script <dir of q2-profile>/../share/q2/`relPath` with `args`. The script
/// exits 3 when matplotlib is missing. Errors start with "--png: ".
llvm::Error runPlotScript(const char *argv0, llvm::StringRef relPath,
                          llvm::ArrayRef<std::string> args,
                          llvm::StringRef python);

} // namespace q2::orch

#endif // Q2_ORCHESTRATOR_PLOTSCRIPT_H
