//===- PlotScript.cpp - Running q2's matplotlib scripts -------------------===//
#include "PlotScript.h"
#include "q2/Orchestrator/ProfileTool.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <optional>
#include <vector>

using llvm::createStringError;

llvm::Error q2::orch::runPlotScript(const char *argv0, llvm::StringRef relPath,
                                    llvm::ArrayRef<std::string> args,
                                    llvm::StringRef python) {
  std::string self = llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&q2::orch::q2ProfileMain));
  llvm::SmallString<256> script(llvm::sys::path::parent_path(self));
  llvm::sys::path::append(script, "..", "share", "q2");
  llvm::sys::path::append(script, relPath);
  if (!llvm::sys::fs::exists(script))
    return createStringError("--png: the plot script is not installed at '" +
                             script + "'");
  std::string py = python.str();
  if (py.empty()) {
    if (llvm::sys::fs::can_execute("/usr/bin/python3"))
      py = "/usr/bin/python3";
    else if (auto p = llvm::sys::findProgramByName("python3"))
      py = *p;
    else
      return createStringError("--png: no python3 found (give --python)");
  }
  std::vector<llvm::StringRef> argv = {py, script};
  for (const std::string &a : args)
    argv.push_back(a);
  std::string err;
  int rc = llvm::sys::ExecuteAndWait(py, argv, std::nullopt, {}, 0, 0, &err);
  if (rc == 3)
    return createStringError("--png: matplotlib is not available to " + py +
                             " (install python3-matplotlib or give --python)");
  if (rc != 0)
    return createStringError("--png: " + py + " " + script + " failed" +
                             (err.empty() ? "" : ": " + err));
  return llvm::Error::success();
}
