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
#include "ShowTool.h"
#include "ProfileToolOptions.h"
#include "SweepInternal.h"
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
using q2::orch::sweep_detail::shellQuote;

namespace q2::orch::profile_tool {

const SweepSpec &specDefaults() {
  static const SweepSpec defaults;
  return defaults;
}
const char *withDefault(const char *help, double v) {
  static std::deque<std::string> texts;
  char buf[32];
  snprintf(buf, sizeof(buf), "%g", v);
  return texts.emplace_back(std::string(help) + " (default " + buf + ")")
      .c_str();
}

Options &options() {
  static Options o;
  return o;
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::atomic<bool> Interrupted{false};
std::atomic<int> InterruptSignal{0};

namespace {
void onSignal(int sig) {
  InterruptSignal.store(sig);
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
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = onSignal;
  sa.sa_flags = SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP})
    sigaction(sig, &sa, nullptr);
}

int fail(const llvm::Twine &msg) {
  errs() << "q2-profile: error: " << msg << "\n";
  return 2;
}

bool splitKV(StringRef s, std::pair<std::string, std::string> &kv) {
  size_t eq = s.find('=');
  if (eq == StringRef::npos || eq == 0)
    return false;
  kv = {s.substr(0, eq).str(), s.substr(eq + 1).str()};
  return true;
}

std::string absolute(StringRef p) {
  llvm::SmallString<256> s(p);
  llvm::sys::fs::make_absolute(s);
  llvm::sys::path::remove_dots(s, /*remove_dot_dot=*/true);
  return std::string(s);
}

std::string selfPath(const char *argv0) {
  return llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&q2::orch::q2ProfileMain));
}

std::string siblingTool(const char *argv0, const char *name) {
  std::string self = selfPath(argv0);
  if (!self.empty()) {
    llvm::SmallString<256> p(llvm::sys::path::parent_path(self));
    llvm::sys::path::append(p, name);
    if (llvm::sys::fs::can_execute(p))
      return std::string(p);
  }
  return name; // Left to PATH lookup.
}

std::string joinTemplate(const std::vector<std::string> &words) {
  std::string out;
  for (const auto &w : words)
    out += (out.empty() ? "" : " ") + shellQuote(w);
  return out;
}

/// Exactly (for job files).
std::string num(double v) {
  char buf[64];
  snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

/// Shortly (for messages).
std::string shortNum(double v) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

} // namespace q2::orch::profile_tool

namespace {

//===----------------------------------------------------------------------===//
// measure
//===----------------------------------------------------------------------===//

int cmdMeasure(Options &o, std::vector<std::string> command) {
  if (!o.MStray.empty())
    return fail("measure: unknown argument '" + o.MStray.front() +
                "' (the command goes after --)");
  MeasureOptions m;
  m.argv = std::move(command);
  m.outDir = o.MOut;
  m.wallBudgetS = o.MWall;
  m.rssBudgetMB = o.MRss;
  m.cwd = o.MCwd;
  m.pollS = o.MPoll / 1000.0;
  m.killGraceS = o.MGrace;
  for (const std::string &v : o.MEnv) {
    std::pair<std::string, std::string> kv;
    if (!splitKV(v, kv))
      return fail("--env: expected K=V, got '" + v + "'");
    m.env.push_back(kv);
  }
  if (m.outDir.empty())
    return fail("measure: --out DIR is required");
  if (m.wallBudgetS == 0 && m.rssBudgetMB == 0 && m.argv.empty())
    return fail("measure: nothing to do (see q2-profile measure --help)");
  if (llvm::Error e = checkPollInterval(m.pollS, m.wallBudgetS))
    return fail("--poll-ms: " + llvm::toString(std::move(e)));
  installInterruptHandler();
  m.cancel = &Interrupted;
  m.cancelSignal = &InterruptSignal;
  llvm::Expected<MeasureRecord> r = measure(m);
  if (!r)
    return fail("measure: " + llvm::toString(r.takeError()));
  if (!o.MQuiet) {
    errs() << "q2-profile: " << stopReasonName(r->reason);
    if (r->reason == StopReason::Cancelled) {
      if (r->cancelledBy)
        errs() << " by " << *r->cancelledBy;
      errs() << " (the command "
             << (r->signal ? "got " + r->signalName
                           : "exited " + std::to_string(r->exitCode))
             << ")";
    } else if (r->reason == StopReason::Exit) {
      errs() << " " << r->exitCode;
    } else if (r->signal) {
      errs() << " " << r->signalName;
    }
    errs() << llvm::format(", wall %.3f s, peak tree RSS %.1f MB -> ",
                           r->wallS, r->peakTreeRssMB)
           << m.outDir << "/record.json\n";
  }
  return r->reason == StopReason::Cancelled ? 130 : 0;
}

//===----------------------------------------------------------------------===//
// merge
//===----------------------------------------------------------------------===//

int cmdMerge(Options &o) {
  if (o.Dirs.empty())
    return fail("merge: no sweep directory given");
  std::vector<std::string> dirs(o.Dirs.begin(), o.Dirs.end());
  auto results = loadResults(dirs);
  if (!results)
    return fail(llvm::toString(results.takeError()));
  if (!o.MergeOut.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(o.MergeOut))
      return fail("--out: '" + o.MergeOut + "': " + ec.message());
    if (llvm::Error e = writeSummary(o.MergeOut, *results))
      return fail(llvm::toString(std::move(e)));
    llvm::SmallString<256> p(o.MergeOut);
    llvm::sys::path::append(p, "results.json");
    if (llvm::Error e = writeResults(p, *results))
      return fail(llvm::toString(std::move(e)));
  }
  outs() << (o.Csv ? summaryCsv(*results) : summaryTable(*results));
  return 0;
}

const char *const Overview =
    "isolated, budgeted runs of the q2 tools and resumable profiling "
    "sweeps (docs/sweeps.md)\n";

const char *const SubcommandNames[] = {"measure", "run",    "sweep", "merge",
                                       "compare", "status", "show",  "html"};

} // namespace

int q2::orch::q2ProfileMain(int argc, char **argv) {
  if (argc < 2) {
    errs() << "usage: q2-profile "
              "<measure|run|sweep|merge|compare|status|show|html> "
              "[options]; "
              "q2-profile --help lists the subcommands\n";
    return 2;
  }
  StringRef first = argv[1];
  bool isSubcommand = llvm::is_contained(SubcommandNames, first);
  if (!isSubcommand && first != "help" && !first.starts_with("-"))
    return fail("unknown command '" + first +
                "' (commands: measure, run, sweep, merge, compare, status, "
                "show, html; see q2-profile --help)");

  // measure: everything after the first `--` is the command, never seen by
  // the option parser (no response files, no options taken from it).
  std::vector<const char *> args(argv, argv + argc);
  std::vector<std::string> command;
  if (first == "measure") {
    auto dd = std::find_if(args.begin(), args.end(),
                           [](const char *a) { return StringRef(a) == "--"; });
    if (dd != args.end()) {
      command.assign(dd + 1, args.end());
      args.erase(dd, args.end());
    }
  } else if (first == "help") {
    args[1] = "--help";
  }

  Options &o = options();
  // -h as before (llvm::cl has only --help); in every subcommand, like it.
  static cl::alias helpShort("h", cl::desc("Alias for --help"),
                             cl::aliasopt(*cl::getRegisteredOptions()["help"]));
  // The commands' options first, --help/--version last; LLVM's own options
  // only in --help-hidden (q2/Support/CommandLine.h). Category names sort
  // before "Other options".
  std::vector<const cl::OptionCategory *> cats = {
      &o.MeasureCat, &o.PointCat, &o.RunCat,          &o.SweepCat,
      &o.SlurmCat,   &o.MergeCat, &compareCategory(), &o.StatusCat};
  for (cl::OptionCategory *c : showCategories())
    cats.push_back(c);
  for (cl::SubCommand *sub :
       {&cl::SubCommand::getTopLevel(), &o.Measure, &o.Run, &o.Sweep, &o.Merge,
        &compareSubCommand(), &o.Status, &showSubCommand(), &htmlSubCommand()})
    q2::organizeHelp(cats, *sub);
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "q2-profile (q2 build id " << q2::buildID() << ")\n";
  });
  if (!cl::ParseCommandLineOptions(int(args.size()), args.data(), Overview,
                                   &errs()))
    return 2;

  if (o.Measure)
    return cmdMeasure(o, std::move(command));
  if (o.Run)
    return cmdRun(o, argv[0]);
  if (o.Sweep)
    return cmdSweep(o, argv[0]);
  if (o.Merge)
    return cmdMerge(o);
  if (o.Status)
    return cmdStatus(o);
  if (compareSubCommand())
    return runCompareCommand(argv[0]);
  if (showSubCommand())
    return runShowCommand(argv[0]);
  if (htmlSubCommand())
    return runHtmlCommand(argv[0]);
  return fail("no command given (commands: measure, run, sweep, merge, "
              "compare, status, show, html; see q2-profile --help)");
}
