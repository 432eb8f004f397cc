//===- ProfileTool.cpp - q2-profile's command line ------------------------===//
//
// The subcommands measure, run, sweep and merge as llvm::cl subcommands
// (help is generated from the options' descriptions; docs/sweeps.md has the
// long form), their refusals and the signal handlers; the options are in
// ProfileToolOptions.h, run and sweep in ProfileSweepCommands.cpp. All the
// work is in Measure.cpp and Sweep.cpp.
//
//===----------------------------------------------------------------------===//

#include "q2/Orchestrator/ProfileTool.h"
#include "CompareTool.h"
#include "ProfileToolOptions.h"
#include "q2/Orchestrator/Measure.h"
#include "q2/Orchestrator/Sweep.h"
#include "q2/Profiling/Memory.h"
#include "q2/Support/BuildID.h"
#include "q2/Support/CommandLine.h"
#include "q2/Support/FileIO.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <optional>
#include <unistd.h>

using namespace q2::orch;
using namespace q2::orch::profile_tool;
using llvm::errs;
using llvm::outs;

namespace q2::orch::profile_tool {

const SweepSpec &specDefaults() {
  static const SweepSpec Defaults;
  return Defaults;
}
const char *withDefault(const char *Help, double V) {
  static std::deque<std::string> Texts;
  char Buf[32];
  snprintf(Buf, sizeof(Buf), "%g", V);
  return Texts.emplace_back(std::string(Help) + " (default " + Buf + ")")
      .c_str();
}

Options &options() {
  static Options O;
  return O;
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::atomic<bool> Interrupted{false};
std::atomic<int> InterruptSignal{0};

namespace {
void onSignal(int Sig) {
  InterruptSignal.store(Sig);
  Interrupted.store(true);
}
} // namespace

/// SIGINT, SIGTERM and SIGHUP ask running measurements to stop their tree
/// (and a sweep to start nothing new); a second one kills us the default
/// way. (LLVM's own handlers, installed when a file is written atomically,
/// restore these before re-raising the signal.)
void installInterruptHandler() {
  static_assert(std::atomic<bool>::is_always_lock_free &&
                    std::atomic<int>::is_always_lock_free,
                "the signal handler needs lock-free atomics");
  struct sigaction SA;
  memset(&SA, 0, sizeof(SA));
  SA.sa_handler = onSignal;
  SA.sa_flags = SA_RESETHAND;
  sigemptyset(&SA.sa_mask);
  for (int Sig : {SIGINT, SIGTERM, SIGHUP})
    sigaction(Sig, &SA, nullptr);
}

int fail(const llvm::Twine &Msg) {
  errs() << "q2-profile: error: " << Msg << "\n";
  return 2;
}

bool splitKV(StringRef S, std::pair<std::string, std::string> &KV) {
  size_t Eq = S.find('=');
  if (Eq == StringRef::npos || Eq == 0)
    return false;
  KV = {S.substr(0, Eq).str(), S.substr(Eq + 1).str()};
  return true;
}

std::string absolute(StringRef P) {
  llvm::SmallString<256> S(P);
  llvm::sys::fs::make_absolute(S);
  llvm::sys::path::remove_dots(S, /*remove_dot_dot=*/true);
  return std::string(S);
}

std::string selfPath(const char *Argv0) {
  return llvm::sys::fs::getMainExecutable(
      Argv0, reinterpret_cast<void *>(&q2::orch::q2ProfileMain));
}

std::string siblingTool(const char *Argv0, const char *Name) {
  std::string Self = selfPath(Argv0);
  if (!Self.empty()) {
    llvm::SmallString<256> P(llvm::sys::path::parent_path(Self));
    llvm::sys::path::append(P, Name);
    if (llvm::sys::fs::can_execute(P))
      return std::string(P);
  }
  return Name; // Left to PATH lookup.
}

std::string shellQuote(const std::string &S) {
  // Braces are safe unless they could form a brace expansion ({a,b}, {1..3}).
  bool Braces = S.find_first_of("{}") != std::string::npos;
  bool Expansion = Braces && (S.find(',') != std::string::npos ||
                              S.find("..") != std::string::npos);
  if (!S.empty() && !Expansion &&
      S.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                          "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                          "0123456789-_./=:,+@%{}") == std::string::npos)
    return S;
  std::string Out = "'";
  for (char C : S)
    Out += C == '\'' ? std::string("'\\''") : std::string(1, C);
  return Out + "'";
}

std::string joinTemplate(const std::vector<std::string> &Words) {
  std::string Out;
  for (const auto &W : Words)
    Out += (Out.empty() ? "" : " ") + shellQuote(W);
  return Out;
}

/// Exactly (for job files).
std::string num(double V) {
  char Buf[64];
  snprintf(Buf, sizeof(Buf), "%.17g", V);
  return Buf;
}

/// Shortly (for messages).
std::string shortNum(double V) {
  char Buf[32];
  snprintf(Buf, sizeof(Buf), "%g", V);
  return Buf;
}

} // namespace q2::orch::profile_tool

namespace {

//===----------------------------------------------------------------------===//
// measure
//===----------------------------------------------------------------------===//

int cmdMeasure(Options &O, std::vector<std::string> Command) {
  if (!O.MStray.empty())
    return fail("measure: unknown argument '" + O.MStray.front() +
                "' (the command goes after --)");
  MeasureOptions M;
  M.argv = std::move(Command);
  M.outDir = O.MOut;
  M.wallBudgetS = O.MWall;
  M.rssBudgetMB = O.MRss;
  M.cwd = O.MCwd;
  M.pollS = O.MPoll / 1000.0;
  M.killGraceS = O.MGrace;
  for (const std::string &V : O.MEnv) {
    std::pair<std::string, std::string> KV;
    if (!splitKV(V, KV))
      return fail("--env: expected K=V, got '" + V + "'");
    M.env.push_back(KV);
  }
  if (M.outDir.empty())
    return fail("measure: --out DIR is required");
  if (M.wallBudgetS == 0 && M.rssBudgetMB == 0 && M.argv.empty())
    return fail("measure: nothing to do (see q2-profile measure --help)");
  if (llvm::Error E = checkPollInterval(M.pollS, M.wallBudgetS))
    return fail("--poll-ms: " + llvm::toString(std::move(E)));
  installInterruptHandler();
  M.cancel = &Interrupted;
  M.cancelSignal = &InterruptSignal;
  llvm::Expected<MeasureRecord> R = measure(M);
  if (!R)
    return fail("measure: " + llvm::toString(R.takeError()));
  if (!O.MQuiet) {
    errs() << "q2-profile: " << stopReasonName(R->reason);
    if (R->reason == StopReason::Cancelled) {
      if (R->cancelledBy)
        errs() << " by " << *R->cancelledBy;
      errs() << " (the command "
             << (R->signal ? "got " + R->signalName
                           : "exited " + std::to_string(R->exitCode))
             << ")";
    } else if (R->reason == StopReason::Exit) {
      errs() << " " << R->exitCode;
    } else if (R->signal) {
      errs() << " " << R->signalName;
    }
    errs() << llvm::format(", wall %.3f s, peak tree RSS %.1f MB -> ",
                           R->wallS, R->peakTreeRssMB)
           << M.outDir << "/record.json\n";
  }
  return R->reason == StopReason::Cancelled ? 130 : 0;
}

//===----------------------------------------------------------------------===//
// merge
//===----------------------------------------------------------------------===//

int cmdMerge(Options &O) {
  if (O.Dirs.empty())
    return fail("merge: no sweep directory given");
  std::vector<std::string> Dirs(O.Dirs.begin(), O.Dirs.end());
  auto Results = loadResults(Dirs);
  if (!Results)
    return fail(llvm::toString(Results.takeError()));
  if (!O.MergeOut.empty()) {
    if (std::error_code EC = llvm::sys::fs::create_directories(O.MergeOut))
      return fail("--out: '" + O.MergeOut + "': " + EC.message());
    if (llvm::Error E = writeSummary(O.MergeOut, *Results))
      return fail(llvm::toString(std::move(E)));
    llvm::SmallString<256> P(O.MergeOut);
    llvm::sys::path::append(P, "results.json");
    if (llvm::Error E = writeResults(P, *Results))
      return fail(llvm::toString(std::move(E)));
  }
  outs() << (O.Csv ? summaryCsv(*Results) : summaryTable(*Results));
  return 0;
}

const char *const Overview =
    "isolated, budgeted runs of the q2 tools and resumable profiling "
    "sweeps (docs/sweeps.md)\n";

const char *const SubcommandNames[] = {"measure", "run", "sweep", "merge",
                                       "compare"};

} // namespace

int q2::orch::q2ProfileMain(int Argc, char **Argv) {
  if (Argc < 2) {
    errs() << "usage: q2-profile <measure|run|sweep|merge|compare> [options]; "
              "q2-profile --help lists the subcommands\n";
    return 2;
  }
  StringRef First = Argv[1];
  bool IsSubcommand = llvm::is_contained(SubcommandNames, First);
  if (!IsSubcommand && First != "help" && !First.starts_with("-"))
    return fail("unknown command '" + First +
                "' (commands: measure, run, sweep, merge, compare; see "
                "q2-profile --help)");

  // measure: everything after the first `--` is the command, never seen by
  // the option parser (no response files, no options taken from it).
  std::vector<const char *> Args(Argv, Argv + Argc);
  std::vector<std::string> Command;
  if (First == "measure") {
    auto DD = std::find_if(Args.begin(), Args.end(),
                           [](const char *A) { return StringRef(A) == "--"; });
    if (DD != Args.end()) {
      Command.assign(DD + 1, Args.end());
      Args.erase(DD, Args.end());
    }
  } else if (First == "help") {
    Args[1] = "--help";
  }

  Options &O = options();
  // -h as before (llvm::cl has only --help); in every subcommand, like it.
  static cl::alias HelpShort("h", cl::desc("Alias for --help"),
                             cl::aliasopt(*cl::getRegisteredOptions()["help"]));
  // The commands' options first, --help/--version last; LLVM's own options
  // only in --help-hidden (q2/Support/CommandLine.h). Category names sort
  // before "Other options".
  for (cl::SubCommand *Sub :
       {&cl::SubCommand::getTopLevel(), &O.Measure, &O.Run, &O.Sweep,
        &O.Merge, &compareSubCommand()})
    q2::organizeHelp({&O.MeasureCat, &O.PointCat, &O.RunCat, &O.SweepCat,
                      &O.MergeCat, &compareCategory()},
                     *Sub);
  cl::SetVersionPrinter([](llvm::raw_ostream &OS) {
    OS << "q2-profile (q2 build id " << q2::buildID() << ")\n";
  });
  if (!cl::ParseCommandLineOptions(int(Args.size()), Args.data(), Overview,
                                   &errs()))
    return 2;

  if (O.Measure)
    return cmdMeasure(O, std::move(Command));
  if (O.Run)
    return cmdRun(O, Argv[0]);
  if (O.Sweep)
    return cmdSweep(O, Argv[0]);
  if (O.Merge)
    return cmdMerge(O);
  if (compareSubCommand())
    return runCompareCommand(Argv[0]);
  return fail("no command given (commands: measure, run, sweep, merge, "
              "compare; see "
              "q2-profile --help)");
}
