//===- q2-profile.cpp - Isolated, budgeted runs and resumable sweeps ------===//
//
// Subcommands: measure, run, sweep, merge (see --help and docs/sweeps.md).
// All the work is in the Q2Orchestrator library; this file parses
// arguments and renders progress.
//
//===----------------------------------------------------------------------===//

#include "q2/Orchestrator/Measure.h"
#include "q2/Orchestrator/Sweep.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <optional>
#include <unistd.h>

using namespace q2::orch;
using llvm::errs;
using llvm::outs;

#ifndef Q2_SOURCE_DIR
#define Q2_SOURCE_DIR "."
#endif

namespace {

const char *const MainHelp = R"(usage: q2-profile <command> [options]

Isolated, budgeted runs of the q2 tools and resumable profiling sweeps.

commands:
  measure   run one command under a wall and a process-tree RSS budget
  run       profile one (n_est, n_trotter) point for one mode or both
  sweep     profile a grid of points x modes x molecules (resumable)
  merge     combine the results of sweep directories into one summary

`q2-profile <command> --help` describes each command.
)";

const char *const MeasureHelp = R"(usage: q2-profile measure --out DIR --wall-s S --rss-mb M
                          [--cwd D] [--env K=V]... [--poll-ms N]
                          [--kill-grace-s G] -- CMD [ARG...]

Runs CMD (no shell) in its own process group and polls it and all its
descendants every 10 ms. When the wall time exceeds S seconds or the summed
RSS of the tree exceeds M decimal MB (1 MB = 1e6 bytes), the whole tree gets
SIGTERM and, after the grace time, SIGKILL. Descendants still alive when CMD
ends are killed too.

Writes DIR (which must not exist; its parent must) with record.json (command,
exit_code, signal, reason = exit|signal|wall_budget|rss_budget, wall_s,
peak_tree_rss_mb, max_vmhwm_mb, poll_s, rss_budget_mb, wall_budget_s,
scope, limitation), stdout.txt and stderr.txt.

Refused before anything is created or started: empty command, NUL in an
argument, non-finite or non-positive budgets, existing DIR, no /proc,
program not found.

options:
  --out DIR          evidence directory to create
  --wall-s S         wall-clock budget in seconds
  --rss-mb M         process-tree RSS budget in decimal MB
  --cwd D            working directory of CMD
  --env K=V          set a variable for CMD (repeatable)
  --poll-ms N        poll interval in ms (default 10)
  --kill-grace-s G   time between SIGTERM and SIGKILL (default 1)
  --quiet            do not print the one-line outcome

exit status: 0 when the record was written (whatever CMD did), 2 on a
refusal or an error.
)";

const char *const SweepOptionsHelp = R"(
point options (run and sweep):
  --q2-qpe PATH      Phase A program, {q2_qpe} (default: next to q2-profile)
  --q2-opt PATH      Phase B+C program, {q2_opt} (default: next to q2-profile)
  --phase-a CMD      Phase A command template (quoted like a shell line)
                     default: {q2_qpe} {ham} --mode {mode} --n-est {n_est}
                              --n-trotter {n_trotter} -o {prog}
  --phase-bc CMD     Phase B+C command template
                     default: {q2_opt} --profile-stages --run {runs} {prog}
                              --report {report}
  --var K=V          extra template placeholder {K} (repeatable)
  --runs N           Phase C executions, {runs} (default 5)
  --wall-s S         wall budget of each phase of a point (default 600)
  --point-rss-mb M   tree RSS budget of each phase of a point (default 4000)
  --poll-ms N        poll interval (default 10)
  --no-progress      never show the progress line
  Placeholders also: {ham} {molecule} {mode} {n_est} {n_trotter}
  {point_dir} {prog} {report}.
)";

const char *const RunHelp = R"(usage: q2-profile run --out DIR --ham FILE --n-est E --n-trotter T
                      [--mode fixed|dynamic|both] [--molecule NAME]
                      [--n-terms N] [point options]

Profiles one point in isolated, budgeted children: Phase A (building the
program) and Phase B+C (compile with --profile-stages and run), per mode,
fixed first. Writes DIR/points/<key>/result.json per mode (phase records +
the tool's report merged) and DIR/summary.{csv,txt}. Rerunning skips modes
already done.
)";

const char *const SweepHelp = R"(usage: q2-profile sweep --out DIR [options]

Profiles a grid of (n_est, n_trotter) x modes x molecules; each point runs
isolated and budgeted. A failed, killed or timed-out point is recorded with
its reason and the sweep goes on. Each point's result is written atomically
to DIR/points/<key>/result.json when it finishes; rerunning the same sweep
skips finished points. At the end DIR/summary.csv and DIR/summary.txt are
written and the table is printed. A progress line (done/total, elapsed, ETA)
is shown when stderr is a terminal and CI is unset.

options:
  --out DIR            sweep directory (created; reused on resume)
  --molecule NAME=FILE[:N_TERMS]
                       add a molecule (repeatable); default:
                       h2=<source>/examples/hamiltonians/h2_0.7414.FCIDUMP:15
  --grid ExT,...       grid (default 2x1,2x3,2x5,3x3,3x5,4x3,4x5,4x10)
  --modes M,...        modes (default fixed,dynamic)
  --jobs N             points run in parallel (default 1)
  --rss-budget-mb M    memory all running points may use together; a point
                       is admitted only if its predicted peak RSS (fitted
                       from finished points) fits; before two points are
                       done a point is assumed to need point-rss-mb
                       (default: point-rss-mb*jobs, at most 80% of
                       MemAvailable)
  --retry-failed       rerun points recorded as failed
  --only KEY           run only this point (repeatable; keys as in points/)
  --emit-jobs FILE     write one self-contained command per point to FILE
                       (for GNU parallel or a Slurm array) and run nothing
)";

const char *const MergeHelp = R"(usage: q2-profile merge [--out DIR] [--csv] SWEEP_DIR...

Combines the finished point results of one or more sweep directories (for
example those of jobs run elsewhere) and prints the summary table (or the
CSV with --csv). With --out, also writes DIR/summary.csv, DIR/summary.txt
and DIR/results.json (all point results).
)";

std::atomic<bool> Interrupted{false};

void onSignal(int) { Interrupted.store(true); }

void installInterruptHandler() {
  struct sigaction SA;
  memset(&SA, 0, sizeof(SA));
  SA.sa_handler = onSignal;
  // A second ^C kills us the default way.
  SA.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &SA, nullptr);
  sigaction(SIGTERM, &SA, nullptr);
  sigaction(SIGHUP, &SA, nullptr);
}

int fail(const llvm::Twine &Msg) {
  errs() << "q2-profile: error: " << Msg << "\n";
  return 2;
}

/// Argument cursor for hand-parsed options of the form `--opt VALUE` or
/// `--opt=VALUE`.
class Args {
public:
  Args(int Argc, char **Argv, int First) {
    for (int I = First; I < Argc; ++I)
      Items.push_back(Argv[I]);
  }
  bool done() const { return Pos >= Items.size(); }
  std::string peek() const { return Items[Pos]; }
  std::string next() { return Items[Pos++]; }
  /// Matches `Name` and fetches its value into V; sets Err when missing.
  bool opt(llvm::StringRef Name, std::string &V) {
    llvm::StringRef Cur = Items[Pos];
    if (Cur == Name) {
      if (Pos + 1 >= Items.size()) {
        Err = "option " + Name.str() + " needs a value";
        ++Pos;
        return true;
      }
      V = Items[Pos + 1];
      Pos += 2;
      return true;
    }
    if (Cur.starts_with(Name) && Cur.drop_front(Name.size()).starts_with("=")) {
      V = Cur.drop_front(Name.size() + 1).str();
      ++Pos;
      return true;
    }
    return false;
  }
  bool flag(llvm::StringRef Name) {
    if (Items[Pos] != Name)
      return false;
    ++Pos;
    return true;
  }
  std::vector<std::string> rest() {
    std::vector<std::string> R(Items.begin() + Pos, Items.end());
    Pos = Items.size();
    return R;
  }
  std::string Err;

private:
  std::vector<std::string> Items;
  size_t Pos = 0;
};

/// Full-string number parse. "nan"/"inf" parse (and are then refused by the
/// library's budget check with a clear message).
bool parseDouble(const std::string &S, double &V) {
  if (S.empty())
    return false;
  char *End = nullptr;
  errno = 0;
  V = strtod(S.c_str(), &End);
  return End && *End == '\0';
}

bool parseUnsigned(const std::string &S, unsigned &V) {
  return !llvm::StringRef(S).getAsInteger(10, V);
}

bool splitKV(const std::string &S, std::pair<std::string, std::string> &KV) {
  size_t Eq = S.find('=');
  if (Eq == std::string::npos || Eq == 0)
    return false;
  KV = {S.substr(0, Eq), S.substr(Eq + 1)};
  return true;
}

std::string absolute(const std::string &P) {
  llvm::SmallString<256> S(P);
  llvm::sys::fs::make_absolute(S);
  llvm::sys::path::remove_dots(S, /*remove_dot_dot=*/true);
  return std::string(S);
}

std::string siblingTool(const char *Argv0, const char *Name) {
  std::string Self = llvm::sys::fs::getMainExecutable(
      Argv0, reinterpret_cast<void *>(&siblingTool));
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

//===----------------------------------------------------------------------===//
// measure
//===----------------------------------------------------------------------===//

int cmdMeasure(Args &A) {
  MeasureOptions O;
  bool Quiet = false;
  std::string V;
  while (!A.done()) {
    if (A.peek() == "--") {
      A.next();
      O.argv = A.rest();
      break;
    }
    if (A.flag("--help") || A.flag("-h")) {
      outs() << MeasureHelp;
      return 0;
    }
    if (A.opt("--out", V))
      O.outDir = V;
    else if (A.opt("--wall-s", V)) {
      if (!parseDouble(V, O.wallBudgetS))
        return fail("--wall-s: not a number: '" + V + "'");
    } else if (A.opt("--rss-mb", V)) {
      if (!parseDouble(V, O.rssBudgetMB))
        return fail("--rss-mb: not a number: '" + V + "'");
    } else if (A.opt("--poll-ms", V)) {
      double Ms;
      if (!parseDouble(V, Ms))
        return fail("--poll-ms: not a number: '" + V + "'");
      O.pollS = Ms / 1000.0;
    } else if (A.opt("--kill-grace-s", V)) {
      if (!parseDouble(V, O.killGraceS))
        return fail("--kill-grace-s: not a number: '" + V + "'");
    } else if (A.opt("--cwd", V))
      O.cwd = V;
    else if (A.opt("--env", V)) {
      std::pair<std::string, std::string> KV;
      if (!splitKV(V, KV))
        return fail("--env: expected K=V, got '" + V + "'");
      O.env.push_back(KV);
    } else if (A.flag("--quiet"))
      Quiet = true;
    else if (!A.Err.empty())
      break;
    else
      return fail("measure: unknown argument '" + A.peek() +
                  "' (the command goes after --)");
    if (!A.Err.empty())
      return fail(A.Err);
  }
  if (!A.Err.empty())
    return fail(A.Err);
  if (O.outDir.empty())
    return fail("measure: --out DIR is required");
  if (O.wallBudgetS == 0 && O.rssBudgetMB == 0 && O.argv.empty())
    return fail("measure: nothing to do (see q2-profile measure --help)");
  llvm::Expected<MeasureRecord> R = measure(O);
  if (!R)
    return fail("measure: " + llvm::toString(R.takeError()));
  if (!Quiet) {
    errs() << "q2-profile: " << stopReasonName(R->reason);
    if (R->reason == StopReason::Exit)
      errs() << " " << R->exitCode;
    if (R->signal)
      errs() << " " << R->signalName;
    errs() << llvm::format(", wall %.3f s, peak tree RSS %.1f MB -> ",
                           R->wallS, R->peakTreeRssMB)
           << O.outDir << "/record.json\n";
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// run / sweep
//===----------------------------------------------------------------------===//

struct SweepCli {
  SweepSpec Spec;
  std::string EmitJobs;
  bool NoProgress = false;
  bool MoleculeGiven = false;
  std::string QpeTool, OptTool;
  // `run` only.
  std::string Ham, MolName = "mol", RunMode = "both";
  unsigned NTerms = 0, NEst = 0, NTrotter = 0;
};

/// Options shared by run and sweep; returns true when consumed.
bool parsePointOption(Args &A, SweepCli &C, std::string &Err) {
  std::string V;
  auto Num = [&](const char *Name, double &Out) {
    if (!parseDouble(V, Out) || !std::isfinite(Out) || Out <= 0)
      Err = std::string(Name) + ": expected a finite positive number, got '" +
            V + "'";
  };
  auto UNum = [&](const char *Name, unsigned &Out) {
    if (!parseUnsigned(V, Out) || Out == 0)
      Err = std::string(Name) + ": expected a positive integer, got '" + V +
            "'";
  };
  auto Template = [&](const char *Name, std::vector<std::string> &Out) {
    llvm::BumpPtrAllocator Alloc;
    llvm::StringSaver Saver(Alloc);
    llvm::SmallVector<const char *, 16> Toks;
    llvm::cl::TokenizeGNUCommandLine(V, Saver, Toks);
    Out.assign(Toks.begin(), Toks.end());
    if (Out.empty())
      Err = std::string(Name) + ": empty command template";
  };
  SweepSpec &S = C.Spec;
  if (A.opt("--out", V))
    S.outDir = V;
  else if (A.opt("--q2-qpe", V))
    C.QpeTool = V;
  else if (A.opt("--q2-opt", V))
    C.OptTool = V;
  else if (A.opt("--phase-a", V))
    Template("--phase-a", S.commands.phaseA);
  else if (A.opt("--phase-bc", V))
    Template("--phase-bc", S.commands.phaseBC);
  else if (A.opt("--var", V)) {
    std::pair<std::string, std::string> KV;
    if (!splitKV(V, KV))
      Err = "--var: expected K=V, got '" + V + "'";
    else
      S.vars[KV.first] = KV.second;
  } else if (A.opt("--runs", V))
    UNum("--runs", S.runs);
  else if (A.opt("--wall-s", V))
    Num("--wall-s", S.phaseWallS);
  else if (A.opt("--point-rss-mb", V))
    Num("--point-rss-mb", S.pointRssMB);
  else if (A.opt("--poll-ms", V)) {
    double Ms = 0;
    Num("--poll-ms", Ms);
    S.pollS = Ms / 1000.0;
  } else if (A.flag("--no-progress"))
    C.NoProgress = true;
  else
    return false;
  if (Err.empty())
    Err = A.Err;
  return true;
}

bool parseMolecule(const std::string &V, Molecule &M, std::string &Err) {
  std::pair<std::string, std::string> KV;
  if (!splitKV(V, KV)) {
    Err = "--molecule: expected NAME=FILE[:N_TERMS], got '" + V + "'";
    return false;
  }
  M.name = KV.first;
  llvm::StringRef File = KV.second;
  size_t Colon = File.rfind(':');
  if (Colon != llvm::StringRef::npos) {
    unsigned N;
    if (!File.drop_front(Colon + 1).getAsInteger(10, N)) {
      M.nTerms = N;
      File = File.take_front(Colon);
    }
  }
  M.hamiltonian = absolute(File.str());
  return true;
}

/// MemAvailable from /proc/meminfo in decimal MB (0 when unknown).
double memAvailableMB() {
  FILE *F = fopen("/proc/meminfo", "r");
  if (!F)
    return 0;
  char Line[256];
  double MB = 0;
  while (fgets(Line, sizeof(Line), F)) {
    unsigned long long KB;
    if (sscanf(Line, "MemAvailable: %llu kB", &KB) == 1) {
      MB = double(KB) * 1024 / 1e6;
      break;
    }
  }
  fclose(F);
  return MB;
}

void finalizeSpec(SweepCli &C, const char *Argv0) {
  SweepSpec &S = C.Spec;
  // Default admission budget: what the machine has, keeping 20% spare.
  if (S.totalRssMB <= 0 && S.jobs > 1) {
    double Avail = 0.8 * memAvailableMB();
    S.totalRssMB = S.pointRssMB * S.jobs;
    if (Avail > 0 && Avail < S.totalRssMB)
      S.totalRssMB = Avail;
  }
  S.outDir = absolute(S.outDir);
  if (!S.vars.count("q2_qpe"))
    S.vars["q2_qpe"] =
        C.QpeTool.empty() ? siblingTool(Argv0, "q2-qpe") : C.QpeTool;
  if (!S.vars.count("q2_opt"))
    S.vars["q2_opt"] =
        C.OptTool.empty() ? siblingTool(Argv0, "q2-opt") : C.OptTool;
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

std::string num(double V) {
  char Buf[64];
  snprintf(Buf, sizeof(Buf), "%.17g", V);
  return Buf;
}

int emitJobs(const SweepCli &C, const char *Argv0) {
  const SweepSpec &S = C.Spec;
  std::string Self = llvm::sys::fs::getMainExecutable(
      Argv0, reinterpret_cast<void *>(&siblingTool));
  std::string Common = shellQuote(Self) + " sweep --out " +
                       shellQuote(S.outDir);
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
            num(S.phaseWallS) + " --point-rss-mb " + num(S.pointRssMB) +
            " --poll-ms " + num(S.pollS * 1000) + " --no-progress";
  if (S.retryFailed)
    Common += " --retry-failed";
  std::string Text;
  for (const auto &Id : enumeratePoints(S)) {
    Text += Common + " --grid " + std::to_string(Id.nEst) + "x" +
            std::to_string(Id.nTrotter) + " --modes " + shellQuote(Id.mode) +
            " --only " + shellQuote(Id.key()) + "\n";
  }
  if (llvm::Error E = llvm::writeToOutput(C.EmitJobs, [&](llvm::raw_ostream &OS) {
        OS << Text;
        return llvm::Error::success();
      }))
    return fail(C.EmitJobs + ": " + llvm::toString(std::move(E)));
  errs() << "q2-profile: wrote " << enumeratePoints(S).size() << " jobs to "
         << C.EmitJobs << "\n";
  return 0;
}

int runSpec(SweepCli &C, bool Print) {
  installInterruptHandler();
  C.Spec.cancel = &Interrupted;
  std::optional<ProgressLine> Line(std::in_place, C.NoProgress);
  llvm::Expected<SweepSummary> Sum =
      runSweep(C.Spec, [&](const ProgressEvent &E) { (*Line)(E); });
  Line.reset(); // Clears the progress line before the table.
  if (!Sum)
    return fail(llvm::toString(Sum.takeError()));
  if (Print)
    outs() << summaryTable(resultsOf(*Sum));
  errs() << "q2-profile: " << Sum->ran << " run, " << Sum->skipped
         << " skipped (already done), " << Sum->failed << " failed";
  if (C.Spec.only.empty())
    errs() << "; summary in " << C.Spec.outDir << "/summary.{txt,csv}";
  errs() << "\n";
  if (Sum->cancelled) {
    errs() << "q2-profile: interrupted; rerun the same command to resume\n";
    return 130;
  }
  return 0;
}

int cmdSweep(Args &A, const char *Argv0) {
  SweepCli C;
  std::string V, Err;
  while (!A.done()) {
    if (A.flag("--help") || A.flag("-h")) {
      outs() << SweepHelp << SweepOptionsHelp;
      return 0;
    }
    if (parsePointOption(A, C, Err)) {
    } else if (A.opt("--molecule", V)) {
      Molecule M;
      if (parseMolecule(V, M, Err))
        C.Spec.molecules.push_back(M);
    } else if (A.opt("--grid", V)) {
      auto G = parseGrid(V);
      if (!G)
        Err = "--grid: " + llvm::toString(G.takeError());
      else
        C.Spec.grid = *G;
    } else if (A.opt("--modes", V)) {
      C.Spec.modes.clear();
      llvm::SmallVector<llvm::StringRef, 4> Parts;
      llvm::StringRef(V).split(Parts, ',', -1, false);
      for (auto P : Parts)
        C.Spec.modes.push_back(P.trim().str());
      if (C.Spec.modes.empty())
        Err = "--modes: empty";
    } else if (A.opt("--jobs", V)) {
      if (!parseUnsigned(V, C.Spec.jobs) || C.Spec.jobs == 0)
        Err = "--jobs: expected a positive integer, got '" + V + "'";
    } else if (A.opt("--rss-budget-mb", V)) {
      if (!parseDouble(V, C.Spec.totalRssMB) ||
          !std::isfinite(C.Spec.totalRssMB) || C.Spec.totalRssMB <= 0)
        Err = "--rss-budget-mb: expected a finite positive number";
    } else if (A.opt("--only", V))
      C.Spec.only.push_back(V);
    else if (A.opt("--emit-jobs", V))
      C.EmitJobs = V;
    else if (A.flag("--retry-failed"))
      C.Spec.retryFailed = true;
    else if (A.Err.empty())
      return fail("sweep: unknown argument '" + A.peek() + "'");
    if (!A.Err.empty())
      Err = A.Err;
    if (!Err.empty())
      return fail(Err);
  }
  if (C.Spec.outDir.empty())
    return fail("sweep: --out DIR is required");
  if (C.Spec.molecules.empty())
    C.Spec.molecules.push_back(
        {"h2", Q2_SOURCE_DIR "/examples/hamiltonians/h2_0.7414.FCIDUMP", 15});
  finalizeSpec(C, Argv0);
  if (!C.EmitJobs.empty())
    return emitJobs(C, Argv0);
  return runSpec(C, /*Print=*/true);
}

int cmdRun(Args &A, const char *Argv0) {
  SweepCli C;
  std::string V, Err;
  while (!A.done()) {
    if (A.flag("--help") || A.flag("-h")) {
      outs() << RunHelp << SweepOptionsHelp;
      return 0;
    }
    if (parsePointOption(A, C, Err)) {
    } else if (A.opt("--ham", V))
      C.Ham = V;
    else if (A.opt("--molecule", V))
      C.MolName = V;
    else if (A.opt("--n-terms", V)) {
      if (!parseUnsigned(V, C.NTerms))
        Err = "--n-terms: expected an integer";
    } else if (A.opt("--n-est", V)) {
      if (!parseUnsigned(V, C.NEst) || !C.NEst)
        Err = "--n-est: expected a positive integer";
    } else if (A.opt("--n-trotter", V)) {
      if (!parseUnsigned(V, C.NTrotter) || !C.NTrotter)
        Err = "--n-trotter: expected a positive integer";
    } else if (A.opt("--mode", V)) {
      if (V != "fixed" && V != "dynamic" && V != "both")
        Err = "--mode: expected fixed, dynamic or both";
      C.RunMode = V;
    } else if (A.Err.empty())
      return fail("run: unknown argument '" + A.peek() + "'");
    if (!A.Err.empty())
      Err = A.Err;
    if (!Err.empty())
      return fail(Err);
  }
  if (C.Spec.outDir.empty() || C.Ham.empty() || !C.NEst || !C.NTrotter)
    return fail("run: --out, --ham, --n-est and --n-trotter are required");
  if (!llvm::sys::fs::exists(C.Ham))
    return fail(C.Ham + ": no such file");
  C.Spec.molecules = {{C.MolName, absolute(C.Ham), C.NTerms}};
  C.Spec.grid = {{C.NEst, C.NTrotter}};
  if (C.RunMode == "both")
    C.Spec.modes = {"fixed", "dynamic"};
  else
    C.Spec.modes = {C.RunMode};
  finalizeSpec(C, Argv0);
  return runSpec(C, /*Print=*/true);
}

//===----------------------------------------------------------------------===//
// merge
//===----------------------------------------------------------------------===//

int cmdMerge(Args &A) {
  std::string Out, V;
  bool Csv = false;
  std::vector<std::string> Dirs;
  while (!A.done()) {
    if (A.flag("--help") || A.flag("-h")) {
      outs() << MergeHelp;
      return 0;
    }
    if (A.opt("--out", V))
      Out = V;
    else if (A.flag("--csv"))
      Csv = true;
    else if (llvm::StringRef(A.peek()).starts_with("-"))
      return fail("merge: unknown option '" + A.peek() + "'");
    else
      Dirs.push_back(A.next());
    if (!A.Err.empty())
      return fail(A.Err);
  }
  if (Dirs.empty())
    return fail("merge: no sweep directory given");
  auto Results = loadResults(Dirs);
  if (!Results)
    return fail(llvm::toString(Results.takeError()));
  if (!Out.empty()) {
    if (std::error_code EC = llvm::sys::fs::create_directories(Out))
      return fail(Out + ": " + EC.message());
    if (llvm::Error E = writeSummary(Out, *Results))
      return fail(llvm::toString(std::move(E)));
    llvm::SmallString<256> P(Out);
    llvm::sys::path::append(P, "results.json");
    if (llvm::Error E = writeResults(P, *Results))
      return fail(llvm::toString(std::move(E)));
  }
  outs() << (Csv ? summaryCsv(*Results) : summaryTable(*Results));
  return 0;
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc < 2) {
    errs() << MainHelp;
    return 2;
  }
  llvm::StringRef Cmd = Argv[1];
  Args A(Argc, Argv, 2);
  if (Cmd == "--help" || Cmd == "-h" || Cmd == "help") {
    outs() << MainHelp;
    return 0;
  }
  if (Cmd == "measure")
    return cmdMeasure(A);
  if (Cmd == "run")
    return cmdRun(A, Argv[0]);
  if (Cmd == "sweep")
    return cmdSweep(A, Argv[0]);
  if (Cmd == "merge")
    return cmdMerge(A);
  errs() << "q2-profile: unknown command '" << Cmd << "'\n\n" << MainHelp;
  return 2;
}
