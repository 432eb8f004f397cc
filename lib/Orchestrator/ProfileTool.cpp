//===- ProfileTool.cpp - q2-profile's command line ------------------------===//
//
// The subcommands measure, run, sweep and merge as llvm::cl subcommands
// (help is generated from the options' descriptions; docs/sweeps.md has the
// long form), their refusals, the signal handlers and the progress line.
// All the work is in Measure.cpp and Sweep.cpp.
//
//===----------------------------------------------------------------------===//

#include "q2/Orchestrator/ProfileTool.h"
#include "CompareTool.h"
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
using llvm::errs;
using llvm::outs;
using llvm::StringRef;
namespace cl = llvm::cl;

namespace {

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

/// Unsigned decimal integers (cl's own parser also takes 0x.. and octal).
class DecimalParser : public cl::parser<unsigned> {
public:
  using cl::parser<unsigned>::parser;
  bool parse(cl::Option &O, StringRef, StringRef Arg, unsigned &V) {
    if (Arg.getAsInteger(10, V))
      return O.error("'" + Arg + "' is not a non-negative integer");
    return false;
  }
};
using UnsignedOpt = cl::opt<unsigned, false, DecimalParser>;

/// The defaults of run and sweep are SweepSpec's (declared there only).
const SweepSpec &specDefaults() {
  static const SweepSpec Defaults;
  return Defaults;
}
/// `Help` followed by " (default V)"; kept alive for cl::desc.
const char *withDefault(const char *Help, double V) {
  static std::deque<std::string> Texts;
  char Buf[32];
  snprintf(Buf, sizeof(Buf), "%g", V);
  return Texts.emplace_back(std::string(Help) + " (default " + Buf + ")")
      .c_str();
}

enum class RunMode { Fixed, Dynamic, Both };

/// Every option of every subcommand. Constructed on the first call of
/// q2ProfileMain (registering them with llvm::cl), so that a program that
/// only links the library sees none of them.
struct Options {
  cl::SubCommand Measure{
      "measure", "run one command under a wall and a process-tree RSS budget "
                 "(writes DIR/record.json)"};
  cl::SubCommand Run{"run", "profile one (n_est, n_trotter) point for one "
                            "mode or both, in isolated budgeted children"};
  cl::SubCommand Sweep{"sweep", "profile a grid of points x modes x "
                                "molecules (resumable, parallel, emits jobs)"};
  cl::SubCommand Merge{"merge", "combine the results of sweep directories "
                                "into one summary"};
  cl::SubCommandGroup RunAndSweep{&Run, &Sweep};

  cl::OptionCategory MeasureCat{"Command: measure"};
  cl::OptionCategory PointCat{
      "Command: run and sweep (points)",
      "Each point runs Phase A ({q2_qpe} builds the program) and Phase B+C "
      "({q2_opt} compiles with --profile-stages and runs it) as measured "
      "children, each under the budgets --wall-s and --point-rss-mb. "
      "Template placeholders: {ham} {molecule} {mode} {n_est} {n_trotter} "
      "{runs} {point_dir} {prog} {report} {q2_qpe} {q2_opt}, and every "
      "--var K=V."};
  cl::OptionCategory RunCat{"Command: run"};
  cl::OptionCategory SweepCat{"Command: sweep"};
  cl::OptionCategory MergeCat{"Command: merge"};

  // measure
  cl::opt<std::string> MOut{
      "out",
      cl::desc("Evidence directory to create: record.json (q2.measure/1), "
               "stdout.txt, stderr.txt. Must not exist; its parent must"),
      cl::value_desc("DIR"), cl::sub(Measure), cl::cat(MeasureCat)};
  cl::opt<double> MWall{
      "wall-s",
      cl::desc("Wall-clock budget in seconds; when exceeded, the whole tree "
               "gets SIGTERM and, after the grace time, SIGKILL"),
      cl::value_desc("S"), cl::init(0), cl::sub(Measure), cl::cat(MeasureCat)};
  cl::opt<double> MRss{
      "rss-mb",
      cl::desc("Budget on the summed RSS of the command and all its "
               "descendants, decimal MB (1 MB = 1e6 bytes)"),
      cl::value_desc("M"), cl::init(0), cl::sub(Measure), cl::cat(MeasureCat)};
  cl::opt<std::string> MCwd{"cwd",
                            cl::desc("Working directory of the command "
                                     "(default: inherited)"),
                            cl::value_desc("D"), cl::sub(Measure),
                            cl::cat(MeasureCat)};
  cl::list<std::string> MEnv{
      "env", cl::desc("Set (or override) a variable for the command "
                      "(repeatable)"),
      cl::value_desc("K=V"), cl::sub(Measure), cl::cat(MeasureCat)};
  cl::opt<double> MPoll{
      "poll-ms",
      cl::desc(withDefault("Poll interval in ms: every poll finds the tree "
                           "in /proc and checks the budgets. 1 to 1000, at "
                           "most the wall budget",
                           MeasureBudget().pollS * 1000)),
      cl::value_desc("N"), cl::init(MeasureBudget().pollS * 1000),
      cl::sub(Measure), cl::cat(MeasureCat)};
  cl::opt<double> MGrace{
      "kill-grace-s",
      cl::desc(withDefault("Time between SIGTERM and SIGKILL when the tree "
                           "is stopped",
                           MeasureBudget().killGraceS)),
      cl::value_desc("G"), cl::init(MeasureBudget().killGraceS),
      cl::sub(Measure), cl::cat(MeasureCat)};
  cl::opt<bool> MQuiet{"quiet", cl::desc("Do not print the one-line outcome"),
                       cl::sub(Measure), cl::cat(MeasureCat)};
  /// Words before `--`: refused (the command goes after `--`).
  cl::list<std::string> MStray{cl::Positional, cl::desc("-- CMD [ARG...]"),
                               cl::sub(Measure), cl::cat(MeasureCat)};

  // run and sweep
  cl::opt<std::string> Out{
      "out",
      cl::desc("Sweep directory: points/<key>/ per point, summary.csv, "
               "summary.txt (created; rerunning resumes)"),
      cl::value_desc("DIR"), cl::sub(RunAndSweep), cl::cat(PointCat)};
  cl::opt<std::string> QpeTool{
      "q2-qpe",
      cl::desc("Phase A program, {q2_qpe} (default: next to q2-profile, "
               "else PATH)"),
      cl::value_desc("PATH"), cl::sub(RunAndSweep), cl::cat(PointCat)};
  cl::opt<std::string> OptTool{
      "q2-opt",
      cl::desc("Phase B+C program, {q2_opt} (default: next to q2-profile, "
               "else PATH)"),
      cl::value_desc("PATH"), cl::sub(RunAndSweep), cl::cat(PointCat)};
  cl::opt<std::string> PhaseA{
      "phase-a",
      cl::desc("Phase A command template, quoted like a shell line "
               "(default: {q2_qpe} {ham} --mode {mode} --n-est {n_est} "
               "--n-trotter {n_trotter} -o {prog})"),
      cl::value_desc("CMD"), cl::sub(RunAndSweep), cl::cat(PointCat)};
  cl::opt<std::string> PhaseBC{
      "phase-bc",
      cl::desc("Phase B+C command template (default: {q2_opt} "
               "--profile-stages --run {runs} {prog} --report {report}); "
               "{report} must be a q2.profile/3 report"),
      cl::value_desc("CMD"), cl::sub(RunAndSweep), cl::cat(PointCat)};
  cl::list<std::string> Vars{
      "var", cl::desc("Extra template placeholder {K} (repeatable)"),
      cl::value_desc("K=V"), cl::sub(RunAndSweep), cl::cat(PointCat)};
  UnsignedOpt Runs{"runs",
                   cl::desc(withDefault("Phase C executions, {runs}",
                                        specDefaults().runs)),
                   cl::value_desc("N"), cl::init(specDefaults().runs),
                   cl::sub(RunAndSweep), cl::cat(PointCat)};
  cl::opt<double> Wall{
      "wall-s",
      cl::desc(withDefault("Wall budget of each phase of a point, s",
                           specDefaults().phase.wallBudgetS)),
      cl::value_desc("S"), cl::init(specDefaults().phase.wallBudgetS),
      cl::sub(RunAndSweep), cl::cat(PointCat)};
  cl::opt<double> PointRss{
      "point-rss-mb",
      cl::desc(withDefault("Process-tree RSS budget of each phase of a "
                           "point, decimal MB",
                           specDefaults().phase.rssBudgetMB)),
      cl::value_desc("M"), cl::init(specDefaults().phase.rssBudgetMB),
      cl::sub(RunAndSweep), cl::cat(PointCat)};
  cl::opt<double> Poll{
      "poll-ms",
      cl::desc(withDefault("Poll interval of the phases in ms, 1 to 1000, at "
                           "most the wall budget",
                           specDefaults().phase.pollS * 1000)),
      cl::value_desc("N"), cl::init(specDefaults().phase.pollS * 1000),
      cl::sub(RunAndSweep), cl::cat(PointCat)};
  cl::opt<bool> NoProgress{
      "no-progress",
      cl::desc("Never show the progress line (shown only when stderr is a "
               "terminal and CI is unset)"),
      cl::sub(RunAndSweep), cl::cat(PointCat)};

  // run
  cl::opt<std::string> Ham{"ham", cl::desc("Hamiltonian (FCIDUMP), {ham}"),
                           cl::value_desc("FILE"), cl::sub(Run),
                           cl::cat(RunCat)};
  cl::opt<std::string> RunMolecule{
      "molecule", cl::desc("Molecule name, {molecule} and the point keys "
                           "(default mol)"),
      cl::value_desc("NAME"), cl::init("mol"), cl::sub(Run), cl::cat(RunCat)};
  UnsignedOpt NTerms{"n-terms",
                     cl::desc("Pauli terms of the Hamiltonian (default: "
                              "from the report)"),
                     cl::value_desc("N"), cl::init(0), cl::sub(Run),
                     cl::cat(RunCat)};
  UnsignedOpt NEst{"n-est", cl::desc("Estimation wires (required)"),
                   cl::value_desc("E"), cl::init(0), cl::sub(Run),
                   cl::cat(RunCat)};
  UnsignedOpt NTrotter{"n-trotter", cl::desc("Trotter steps (required)"),
                       cl::value_desc("T"), cl::init(0), cl::sub(Run),
                       cl::cat(RunCat)};
  cl::opt<RunMode> Mode{
      "mode", cl::desc("Program mode; both runs fixed first"),
      cl::value_desc("fixed|dynamic|both"),
      cl::values(clEnumValN(RunMode::Fixed, "fixed", "coefficients as constants"),
                 clEnumValN(RunMode::Dynamic, "dynamic",
                            "coefficients as a function argument"),
                 clEnumValN(RunMode::Both, "both", "fixed, then dynamic")),
      cl::init(RunMode::Both), cl::sub(Run), cl::cat(RunCat)};

  // sweep
  cl::list<std::string> Molecules{
      "molecule",
      cl::desc("Add a molecule (repeatable). Default: "
               "h2=<examples>/hamiltonians/h2_0.7414.FCIDUMP:15, with "
               "<examples> = <dir of q2-profile>/../share/q2/examples. Names "
               "that give the same point keys (h2+ and h2p) are refused"),
      cl::value_desc("NAME=FILE[:N_TERMS]"), cl::sub(Sweep),
      cl::cat(SweepCat)};
  cl::opt<std::string> Grid{
      "grid",
      cl::desc("n_est x n_trotter points (default "
               "2x1,2x3,2x5,3x3,3x5,4x3,4x5,4x10)"),
      cl::value_desc("ExT,..."), cl::sub(Sweep), cl::cat(SweepCat)};
  cl::opt<std::string> Modes{"modes",
                             cl::desc("Modes (default fixed,dynamic)"),
                             cl::value_desc("M,..."), cl::sub(Sweep),
                             cl::cat(SweepCat)};
  UnsignedOpt Jobs{"jobs", cl::desc("Points run in parallel (default 1)"),
                   cl::value_desc("N"), cl::init(1), cl::sub(Sweep),
                   cl::cat(SweepCat)};
  cl::opt<double> TotalRss{
      "rss-budget-mb",
      cl::desc("Memory all running points may use together: a point starts "
               "only if its predicted peak RSS (fitted from finished points; "
               "point-rss-mb before two are done) fits. Default: "
               "point-rss-mb*jobs, at most 80% of MemAvailable"),
      cl::value_desc("M"), cl::init(0), cl::sub(Sweep), cl::cat(SweepCat)};
  cl::opt<bool> RetryFailed{"retry-failed",
                            cl::desc("Rerun points recorded as failed"),
                            cl::sub(Sweep), cl::cat(SweepCat)};
  cl::list<std::string> Only{
      "only",
      cl::desc("Run only this point (repeatable; keys as in points/). Such "
               "runs may share a sweep directory; each point is locked"),
      cl::value_desc("KEY"), cl::sub(Sweep), cl::cat(SweepCat)};
  cl::opt<std::string> EmitJobs{
      "emit-jobs",
      cl::desc("Write one self-contained command per point to FILE (for GNU "
               "parallel or a Slurm array) and run nothing"),
      cl::value_desc("FILE"), cl::sub(Sweep), cl::cat(SweepCat)};

  // merge
  cl::opt<std::string> MergeOut{
      "out",
      cl::desc("Also write DIR/summary.csv, DIR/summary.txt and "
               "DIR/results.json (all point results)"),
      cl::value_desc("DIR"), cl::sub(Merge), cl::cat(MergeCat)};
  cl::opt<bool> Csv{"csv", cl::desc("Print the CSV instead of the table"),
                    cl::sub(Merge), cl::cat(MergeCat)};
  cl::list<std::string> Dirs{cl::Positional, cl::desc("SWEEP_DIR..."),
                             cl::sub(Merge), cl::cat(MergeCat)};

  cl::extrahelp MoreHelp{
      "\nExit status: 0 when done (a failed command is a result of measure), "
      "3 when a sweep or run\nfinished with failed points (all points are "
      "written), 2 for a refusal or an error,\n130 when interrupted by "
      "SIGINT, SIGTERM or SIGHUP (the measured tree is stopped\nfirst). "
      "compare: 0 no regression, 1 regression, 2 error. Details: "
      "docs/sweeps.md,\ndocs/compare.md.\n"};
};

Options &options() {
  static Options O;
  return O;
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// `sweep`/`run` finished, and at least one point failed (now or before).
constexpr int kExitPointsFailed = 3;

std::atomic<bool> Interrupted{false};
std::atomic<int> InterruptSignal{0};

void onSignal(int Sig) {
  InterruptSignal.store(Sig);
  Interrupted.store(true);
}

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
// run / sweep
//===----------------------------------------------------------------------===//

/// Parses NAME=FILE[:N_TERMS].
bool parseMolecule(StringRef V, Molecule &M) {
  std::pair<std::string, std::string> KV;
  if (!splitKV(V, KV))
    return false;
  M.name = KV.first;
  StringRef File = KV.second;
  size_t Colon = File.rfind(':');
  if (Colon != StringRef::npos) {
    unsigned N;
    if (!File.drop_front(Colon + 1).getAsInteger(10, N)) {
      M.nTerms = N;
      File = File.take_front(Colon);
    }
  }
  M.hamiltonian = absolute(File);
  return true;
}

/// The options shared by run and sweep; an error message names the flag.
llvm::Expected<SweepSpec> pointSpec(Options &O) {
  auto Err = [](const llvm::Twine &Msg) {
    return llvm::createStringError(Msg);
  };
  SweepSpec S;
  S.outDir = O.Out;
  auto Template = [&](const char *Name, const std::string &Text,
                      std::vector<std::string> &Out) -> llvm::Error {
    llvm::BumpPtrAllocator Alloc;
    llvm::StringSaver Saver(Alloc);
    llvm::SmallVector<const char *, 16> Toks;
    cl::TokenizeGNUCommandLine(Text, Saver, Toks);
    Out.assign(Toks.begin(), Toks.end());
    if (Out.empty())
      return Err(llvm::Twine(Name) + ": empty command template");
    return llvm::Error::success();
  };
  if (O.PhaseA.getNumOccurrences())
    if (llvm::Error E = Template("--phase-a", O.PhaseA, S.commands.phaseA))
      return std::move(E);
  if (O.PhaseBC.getNumOccurrences())
    if (llvm::Error E = Template("--phase-bc", O.PhaseBC, S.commands.phaseBC))
      return std::move(E);
  for (const std::string &V : O.Vars) {
    std::pair<std::string, std::string> KV;
    if (!splitKV(V, KV))
      return Err("--var: expected K=V, got '" + V + "'");
    S.vars[KV.first] = KV.second;
  }
  if (O.Runs == 0)
    return Err("--runs: expected a positive integer, got 0");
  S.runs = O.Runs;
  auto Positive = [&](const char *Name, double V) -> llvm::Error {
    if (!std::isfinite(V) || V <= 0)
      return Err(llvm::Twine(Name) +
                 ": expected a finite positive number, got " +
                 shortNum(V));
    return llvm::Error::success();
  };
  if (llvm::Error E = Positive("--wall-s", O.Wall))
    return std::move(E);
  if (llvm::Error E = Positive("--point-rss-mb", O.PointRss))
    return std::move(E);
  S.phase.wallBudgetS = O.Wall;
  S.phase.rssBudgetMB = O.PointRss;
  S.phase.pollS = O.Poll / 1000.0;
  if (llvm::Error E = checkPollInterval(S.phase.pollS, S.phase.wallBudgetS))
    return Err("--poll-ms: " + llvm::toString(std::move(E)));
  return S;
}

/// Fills in defaults that depend on the machine and the executable.
void finalizeSpec(Options &O, SweepSpec &S, const char *Argv0) {
  // Default admission budget: what the machine has, keeping 20% spare.
  if (S.totalRssMB <= 0 && S.jobs > 1) {
    S.totalRssMB = S.phase.rssBudgetMB * S.jobs;
    llvm::Expected<uint64_t> Avail = q2::profiling::readMemAvailable();
    if (Avail) {
      double MB = 0.8 * double(*Avail) / 1e6;
      if (MB > 0 && MB < S.totalRssMB)
        S.totalRssMB = MB;
    } else {
      llvm::consumeError(Avail.takeError());
    }
  }
  S.outDir = absolute(S.outDir);
  if (!S.vars.count("q2_qpe"))
    S.vars["q2_qpe"] =
        O.QpeTool.empty() ? siblingTool(Argv0, "q2-qpe") : O.QpeTool;
  if (!S.vars.count("q2_opt"))
    S.vars["q2_opt"] =
        O.OptTool.empty() ? siblingTool(Argv0, "q2-opt") : O.OptTool;
}

/// Progress on a terminal only, never in CI logs.
class ProgressLine {
public:
  explicit ProgressLine(bool Disabled) {
    const char *CI = getenv("CI");
    Enabled = !Disabled && isatty(STDERR_FILENO) && (!CI || !*CI);
  }
  void operator()(const ProgressEvent &E) {
    if (!Enabled)
      return;
    std::string Line = llvm::formatv("[{0}/{1}] {2} running, elapsed {3}",
                                     E.done, E.total, E.running,
                                     duration(E.elapsedS))
                           .str();
    Line += ", ETA " + (E.etaS < 0 ? std::string("?") : duration(E.etaS));
    if (E.kind == ProgressEvent::Finished && E.status != "ok")
      errs() << "\r\x1b[K" << E.point.key() << ": " << E.status << "\n";
    if (E.kind == ProgressEvent::Started)
      Line += " | started " + E.point.key();
    errs() << "\r\x1b[K" << Line;
    errs().flush();
    Dirty = true;
  }
  ~ProgressLine() {
    if (Dirty)
      errs() << "\r\x1b[K";
  }

private:
  static std::string duration(double S) {
    if (S < 120)
      return llvm::formatv("{0:f1}s", S).str();
    unsigned T = unsigned(S);
    return llvm::formatv("{0}m{1:d2}s", T / 60, T % 60).str();
  }
  bool Enabled;
  bool Dirty = false;
};

int emitJobs(const SweepSpec &S, const std::string &File,
             const char *Argv0) {
  std::string Common =
      shellQuote(selfPath(Argv0)) + " sweep --out " + shellQuote(S.outDir);
  for (const auto &M : S.molecules)
    Common += " --molecule " +
              shellQuote(M.name + "=" + M.hamiltonian +
                         (M.nTerms ? ":" + std::to_string(M.nTerms) : ""));
  Common += " --phase-a " + shellQuote(joinTemplate(S.commands.phaseA));
  Common += " --phase-bc " + shellQuote(joinTemplate(S.commands.phaseBC));
  for (const auto &KV : S.vars)
    Common += " --var " + shellQuote(KV.first + "=" + KV.second);
  // %.17g: the job must get exactly the budgets given here.
  Common += " --runs " + std::to_string(S.runs) + " --wall-s " +
            num(S.phase.wallBudgetS) + " --point-rss-mb " + num(S.phase.rssBudgetMB) +
            " --poll-ms " + num(S.phase.pollS * 1000) + " --no-progress";
  if (S.retryFailed)
    Common += " --retry-failed";
  std::string Text;
  std::vector<PointId> Ids = enumeratePoints(S);
  for (const auto &Id : Ids)
    Text += Common + " --grid " + std::to_string(Id.nEst) + "x" +
            std::to_string(Id.nTrotter) + " --modes " + shellQuote(Id.mode) +
            " --only " + shellQuote(Id.key()) + "\n";
  if (llvm::Error E = q2::writeFileAtomically(File, Text))
    return fail("--emit-jobs: " + llvm::toString(std::move(E)));
  errs() << "q2-profile: wrote " << Ids.size() << " jobs to " << File << "\n";
  return 0;
}

int runSpec(SweepSpec &S, bool NoProgress) {
  installInterruptHandler();
  S.cancel = &Interrupted;
  S.cancelSignal = &InterruptSignal;
  std::optional<ProgressLine> Line(std::in_place, NoProgress);
  llvm::Expected<SweepSummary> Sum =
      runSweep(S, [&](const ProgressEvent &E) { (*Line)(E); });
  Line.reset(); // Clears the progress line before the table.
  if (!Sum)
    return fail(llvm::toString(Sum.takeError()));
  std::vector<PointRecord> Results = resultsOf(*Sum);
  outs() << summaryTable(Results);
  // Failures of the machinery (not of the point) have no result.json to
  // look into: say why here.
  for (const PointRecord &R : Results)
    if (R.reason == "error" && R.message)
      errs() << "q2-profile: " << R.key << ": " << *R.message << "\n";
  errs() << "q2-profile: " << Sum->ran << " run, " << Sum->skipped
         << " skipped (already done), " << Sum->failed << " failed";
  if (S.only.empty())
    errs() << "; summary in " << S.outDir << "/summary.{txt,csv}";
  errs() << "\n";
  if (Sum->cancelled) {
    int Sig = InterruptSignal.load();
    errs() << "q2-profile: interrupted"
           << (Sig ? " by " + signalName(Sig) : std::string())
           << "; rerun the same command to resume\n";
    return 130;
  }
  // Every point is written; the status tells a script that some failed.
  return Sum->failed ? kExitPointsFailed : 0;
}

int cmdSweep(Options &O, const char *Argv0) {
  llvm::Expected<SweepSpec> Spec = pointSpec(O);
  if (!Spec)
    return fail(llvm::toString(Spec.takeError()));
  SweepSpec &S = *Spec;
  for (const std::string &V : O.Molecules) {
    Molecule M;
    if (!parseMolecule(V, M))
      return fail("--molecule: expected NAME=FILE[:N_TERMS], got '" + V +
                  "'");
    S.molecules.push_back(M);
  }
  if (O.Grid.getNumOccurrences()) {
    auto G = parseGrid(O.Grid);
    if (!G)
      return fail("--grid: " + llvm::toString(G.takeError()));
    S.grid = *G;
  }
  if (O.Modes.getNumOccurrences()) {
    S.modes.clear();
    llvm::SmallVector<StringRef, 4> Parts;
    StringRef(O.Modes).split(Parts, ',', -1, false);
    for (StringRef P : Parts)
      if (!P.trim().empty())
        S.modes.push_back(P.trim().str());
    if (S.modes.empty())
      return fail("--modes: empty");
  }
  if (O.Jobs == 0)
    return fail("--jobs: expected a positive integer, got 0");
  S.jobs = O.Jobs;
  if (O.TotalRss.getNumOccurrences()) {
    if (!std::isfinite(O.TotalRss) || O.TotalRss <= 0)
      return fail("--rss-budget-mb: expected a finite positive number");
    S.totalRssMB = O.TotalRss;
  }
  S.only.assign(O.Only.begin(), O.Only.end());
  S.retryFailed = O.RetryFailed;
  if (S.outDir.empty())
    return fail("sweep: --out DIR is required");
  if (S.molecules.empty()) {
    llvm::Expected<Molecule> M =
        defaultMolecule(examplesDirFor(selfPath(Argv0)));
    if (!M)
      return fail(llvm::toString(M.takeError()));
    S.molecules.push_back(*M);
  }
  finalizeSpec(O, S, Argv0);
  if (llvm::Error E = validateSweepSpec(S))
    return fail(llvm::toString(std::move(E)));
  if (!O.EmitJobs.empty())
    return emitJobs(S, O.EmitJobs, Argv0);
  return runSpec(S, O.NoProgress);
}

int cmdRun(Options &O, const char *Argv0) {
  llvm::Expected<SweepSpec> Spec = pointSpec(O);
  if (!Spec)
    return fail(llvm::toString(Spec.takeError()));
  SweepSpec &S = *Spec;
  if (S.outDir.empty() || O.Ham.empty() || !O.NEst || !O.NTrotter)
    return fail("run: --out, --ham, --n-est and --n-trotter are required");
  if (!llvm::sys::fs::exists(O.Ham))
    return fail(O.Ham + ": no such file");
  S.molecules = {{O.RunMolecule, absolute(O.Ham), O.NTerms}};
  S.grid = {{O.NEst, O.NTrotter}};
  switch (O.Mode) {
  case RunMode::Fixed:
    S.modes = {"fixed"};
    break;
  case RunMode::Dynamic:
    S.modes = {"dynamic"};
    break;
  case RunMode::Both:
    S.modes = {"fixed", "dynamic"};
    break;
  }
  finalizeSpec(O, S, Argv0);
  if (llvm::Error E = validateSweepSpec(S))
    return fail(llvm::toString(std::move(E)));
  return runSpec(S, O.NoProgress);
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
