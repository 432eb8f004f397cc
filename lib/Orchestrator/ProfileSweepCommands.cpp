//===- ProfileSweepCommands.cpp - q2-profile run and sweep ----------------===//
//
// From the options of `run` and `sweep` to a SweepSpec (one point, or a
// grid), then either the job file of --emit-jobs or runSweep with the
// progress line; the exit status of a finished sweep.
//
//===----------------------------------------------------------------------===//

#include "ProfileToolOptions.h"
#include "q2/Orchestrator/Sweep.h"
#include "q2/Support/FileIO.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdlib>
#include <optional>
#include <unistd.h>

using namespace q2::orch;
using namespace q2::orch::profile_tool;
using llvm::errs;
using llvm::outs;

namespace {


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

} // namespace

int q2::orch::profile_tool::cmdSweep(Options &O, const char *Argv0) {
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

int q2::orch::profile_tool::cmdRun(Options &O, const char *Argv0) {
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
