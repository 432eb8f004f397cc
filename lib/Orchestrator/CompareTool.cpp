//===- CompareTool.cpp - q2-profile compare -------------------------------===//
//
// The command line of `q2-profile compare A B`; the comparison is
// compareProfiles() (Compare.h). --png hands the JSON result to
// plot_compare.py (matplotlib), found in <bin>/../share/q2/.
//
//===----------------------------------------------------------------------===//
#include "CompareTool.h"
#include "q2/Orchestrator/Compare.h"
#include "q2/Orchestrator/ProfileTool.h"
#include "q2/Support/FileIO.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace q2::orch;
namespace cl = llvm::cl;
using llvm::StringRef;

namespace {

struct CompareCL {
  cl::SubCommand Sub{
      "compare",
      "compare two reports, two sets of repeated reports or two sweep "
      "directories (exit 0: no regression, 1: regression, 2: error)"};
  cl::OptionCategory Cat{
      "Command: compare",
      "A and B: a q2.profile/3 report, repeated reports (a directory of "
      "*.json or paths joined by ','), or a sweep directory. Rows per stage, "
      "per pass and a total (per point for sweeps) of wall, CPU, peak RSS, "
      "heap, IR bytes and lines. A change counts when B's median is worse "
      "than A's by more than the metric's threshold and, with >= 2 runs per "
      "side, the min-max ranges do not overlap (docs/compare.md)."};
  cl::list<std::string> Inputs{cl::Positional, cl::desc("A B"), cl::sub(Sub),
                               cl::cat(Cat)};
  cl::opt<bool> Json{"json",
                     cl::desc("Print the result as JSON (schema "
                              "q2.compare/1) instead of the table"),
                     cl::sub(Sub), cl::cat(Cat)};
  cl::opt<std::string> Png{
      "png",
      cl::desc("Also draw before/after bars per stage to FILE (matplotlib, "
               "run with --python)"),
      cl::value_desc("FILE"), cl::sub(Sub), cl::cat(Cat)};
  cl::opt<std::string> Python{
      "python",
      cl::desc("Interpreter for --png (default /usr/bin/python3, else "
               "python3 on PATH)"),
      cl::value_desc("PATH"), cl::sub(Sub), cl::cat(Cat)};
  cl::list<std::string> Threshold{
      "threshold",
      cl::desc("Relative threshold per metric in percent, e.g. "
               "wall=5,peak=2 (metrics wall cpu peak heap ir lines; "
               "defaults 10 10 5 10 1 1); repeatable"),
      cl::value_desc("METRIC=PCT,..."), cl::sub(Sub), cl::cat(Cat)};
  cl::opt<double> MinTimeMs{
      "min-time-ms",
      cl::desc("Time changes below this never count (default 2)"),
      cl::value_desc("MS"), cl::init(2), cl::sub(Sub), cl::cat(Cat)};
  cl::opt<bool> GatePasses{
      "gate-passes",
      cl::desc("Pass rows count for the verdict too (default: stages and "
               "the total)"),
      cl::sub(Sub), cl::cat(Cat)};
  cl::opt<bool> AllowDifferentProgram{
      "allow-different-program",
      cl::desc("Compare reports of different programs (refused otherwise)"),
      cl::sub(Sub), cl::cat(Cat)};
  cl::opt<bool> All{"all",
                    cl::desc("Table: also the pass rows within thresholds"),
                    cl::sub(Sub), cl::cat(Cat)};
};

CompareCL &cmd() {
  static CompareCL C;
  return C;
}

int fail(const llvm::Twine &Msg) {
  llvm::errs() << "q2-profile: error: compare: " << Msg << "\n";
  return 2;
}

/// <bin>/../share/q2/plot_compare.py next to this q2-profile.
std::string plotScript(const char *Argv0) {
  std::string Self = llvm::sys::fs::getMainExecutable(
      Argv0, reinterpret_cast<void *>(&q2::orch::q2ProfileMain));
  llvm::SmallString<256> P(llvm::sys::path::parent_path(Self));
  llvm::sys::path::append(P, "..", "share", "q2", "plot_compare.py");
  return std::string(P);
}

int plot(const CompareResult &R, const char *Argv0) {
  CompareCL &C = cmd();
  std::string Script = plotScript(Argv0);
  if (!llvm::sys::fs::exists(Script))
    return fail("--png: the plot script is not installed at '" + Script + "'");
  std::string Py = C.Python;
  if (Py.empty()) {
    if (llvm::sys::fs::can_execute("/usr/bin/python3"))
      Py = "/usr/bin/python3";
    else if (auto P = llvm::sys::findProgramByName("python3"))
      Py = *P;
    else
      return fail("--png: no python3 found (give --python)");
  }
  llvm::SmallString<128> Tmp;
  if (std::error_code EC =
          llvm::sys::fs::createTemporaryFile("q2-compare", "json", Tmp))
    return fail("--png: cannot create a temporary file: " + EC.message());
  llvm::FileRemover Remove(Tmp);
  if (llvm::Error E = q2::writeFileAtomically(Tmp, toJSONText(R, -1)))
    return fail(llvm::toString(std::move(E)));
  std::string Err;
  StringRef Args[] = {Py, Script, Tmp, "-o", C.Png};
  int RC = llvm::sys::ExecuteAndWait(Py, Args, std::nullopt, {}, 0, 0, &Err);
  if (RC == 3)
    return fail("--png: matplotlib is not available to " + Py +
                " (install python3-matplotlib or give --python)");
  if (RC != 0)
    return fail("--png: " + Py + " " + Script + " failed" +
                (Err.empty() ? "" : ": " + Err));
  return 0;
}

} // namespace

cl::SubCommand &q2::orch::compareSubCommand() { return cmd().Sub; }
cl::OptionCategory &q2::orch::compareCategory() { return cmd().Cat; }

int q2::orch::runCompareCommand(const char *Argv0) {
  CompareCL &C = cmd();
  if (C.Inputs.size() != 2)
    return fail(llvm::Twine("expected two inputs, A and B, got ") +
                llvm::Twine(unsigned(C.Inputs.size())));
  CompareOptions O;
  for (const std::string &T : C.Threshold)
    if (llvm::Error E = parseThresholds(T, O))
      return fail(llvm::toString(std::move(E)));
  if (!(C.MinTimeMs >= 0))
    return fail("--min-time-ms must be >= 0");
  O.minTimeS = C.MinTimeMs / 1e3;
  O.gatePasses = C.GatePasses;
  O.allowDifferentProgram = C.AllowDifferentProgram;
  if (!C.Png.empty())
    if (llvm::Error E = q2::checkOutputPath(C.Png, "--png"))
      return fail(llvm::toString(std::move(E)));
  auto R = compareProfiles(C.Inputs[0], C.Inputs[1], O);
  if (!R)
    return fail(llvm::toString(R.takeError()));
  if (C.Json)
    llvm::outs() << toJSONText(*R) << "\n";
  else
    llvm::outs() << formatCompareTable(*R, C.All);
  llvm::outs().flush();
  if (!C.Png.empty())
    if (int RC = plot(*R, Argv0))
      return RC;
  return R->regression() ? 1 : 0;
}
