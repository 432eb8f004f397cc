//===- CompareTool.cpp - q2-profile compare -------------------------------===//
//
// The command line of `q2-profile compare A B`; the comparison is
// compareProfiles() (Compare.h). --png hands the JSON result to
// plot_compare.py (matplotlib, PlotScript.h), in <bin>/../share/q2/.
//
//===----------------------------------------------------------------------===//
#include "CompareTool.h"
#include "PlotScript.h"
#include "q2/Orchestrator/Compare.h"
#include "q2/Orchestrator/ProfileTool.h"
#include "q2/Support/FileIO.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Path.h"
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
  static CompareCL c;
  return c;
}

int fail(const llvm::Twine &msg) {
  llvm::errs() << "q2-profile: error: compare: " << msg << "\n";
  return 2;
}

int plot(const CompareResult &r, const char *argv0) {
  CompareCL &c = cmd();
  llvm::SmallString<128> tmp;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("q2-compare", "json", tmp))
    return fail("--png: cannot create a temporary file: " + ec.message());
  llvm::FileRemover remove(tmp);
  if (llvm::Error e = q2::writeFileAtomically(tmp, toJSONText(r, -1)))
    return fail(llvm::toString(std::move(e)));
  if (llvm::Error e = runPlotScript(argv0, "plot_compare.py",
                                    {std::string(tmp), "-o", c.Png}, c.Python))
    return fail(llvm::toString(std::move(e)));
  return 0;
}

} // namespace

cl::SubCommand &q2::orch::compareSubCommand() { return cmd().Sub; }
cl::OptionCategory &q2::orch::compareCategory() { return cmd().Cat; }

int q2::orch::runCompareCommand(const char *argv0) {
  CompareCL &c = cmd();
  if (c.Inputs.size() != 2)
    return fail(llvm::Twine("expected two inputs, A and B, got ") +
                llvm::Twine(unsigned(c.Inputs.size())));
  CompareOptions o;
  for (const std::string &t : c.Threshold)
    if (llvm::Error e = parseThresholds(t, o))
      return fail(llvm::toString(std::move(e)));
  if (!(c.MinTimeMs >= 0))
    return fail("--min-time-ms must be >= 0");
  o.minTimeS = c.MinTimeMs / 1e3;
  o.gatePasses = c.GatePasses;
  o.allowDifferentProgram = c.AllowDifferentProgram;
  if (!c.Png.empty())
    if (llvm::Error e = q2::checkOutputPath(c.Png, "--png"))
      return fail(llvm::toString(std::move(e)));
  auto r = compareProfiles(c.Inputs[0], c.Inputs[1], o);
  if (!r)
    return fail(llvm::toString(r.takeError()));
  if (c.Json)
    llvm::outs() << toJSONText(*r) << "\n";
  else
    llvm::outs() << formatCompareTable(*r, c.All);
  llvm::outs().flush();
  if (!c.Png.empty())
    if (int rc = plot(*r, argv0))
      return rc;
  return r->regression() ? 1 : 0;
}
