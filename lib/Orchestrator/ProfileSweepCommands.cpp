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
bool parseMolecule(StringRef v, Molecule &m) {
  std::pair<std::string, std::string> kv;
  if (!splitKV(v, kv))
    return false;
  m.name = kv.first;
  StringRef file = kv.second;
  size_t colon = file.rfind(':');
  if (colon != StringRef::npos) {
    unsigned n;
    if (!file.drop_front(colon + 1).getAsInteger(10, n)) {
      m.nTerms = n;
      file = file.take_front(colon);
    }
  }
  m.hamiltonian = absolute(file);
  return true;
}

/// The options shared by run and sweep; an error message names the flag.
llvm::Expected<SweepSpec> pointSpec(Options &o) {
  auto err = [](const llvm::Twine &msg) {
    return llvm::createStringError(msg);
  };
  SweepSpec s;
  s.outDir = o.Out;
  auto tokenizeTemplate = [&](const char *name, const std::string &text,
                              std::vector<std::string> &out) -> llvm::Error {
    llvm::BumpPtrAllocator alloc;
    llvm::StringSaver saver(alloc);
    llvm::SmallVector<const char *, 16> toks;
    cl::TokenizeGNUCommandLine(text, saver, toks);
    out.assign(toks.begin(), toks.end());
    if (out.empty())
      return err(llvm::Twine(name) + ": empty command template");
    return llvm::Error::success();
  };
  if (o.PhaseA.getNumOccurrences())
    if (llvm::Error e =
            tokenizeTemplate("--phase-a", o.PhaseA, s.commands.phaseA))
      return std::move(e);
  if (o.PhaseBC.getNumOccurrences())
    if (llvm::Error e =
            tokenizeTemplate("--phase-bc", o.PhaseBC, s.commands.phaseBC))
      return std::move(e);
  for (const std::string &v : o.Vars) {
    std::pair<std::string, std::string> kv;
    if (!splitKV(v, kv))
      return err("--var: expected K=V, got '" + v + "'");
    s.vars[kv.first] = kv.second;
  }
  if (o.Runs == 0)
    return err("--runs: expected a positive integer, got 0");
  s.runs = o.Runs;
  auto positive = [&](const char *name, double v) -> llvm::Error {
    if (!std::isfinite(v) || v <= 0)
      return err(llvm::Twine(name) +
                 ": expected a finite positive number, got " +
                 shortNum(v));
    return llvm::Error::success();
  };
  if (llvm::Error e = positive("--wall-s", o.Wall))
    return std::move(e);
  if (llvm::Error e = positive("--point-rss-mb", o.PointRss))
    return std::move(e);
  s.phase.wallBudgetS = o.Wall;
  s.phase.rssBudgetMB = o.PointRss;
  s.phase.pollS = o.Poll / 1000.0;
  if (llvm::Error e = checkPollInterval(s.phase.pollS, s.phase.wallBudgetS))
    return err("--poll-ms: " + llvm::toString(std::move(e)));
  return s;
}

/// Fills in defaults that depend on the machine and the executable.
void finalizeSpec(Options &o, SweepSpec &s, const char *argv0) {
  // Default admission budget: what the machine has, keeping 20% spare.
  if (s.totalRssMB <= 0 && s.jobs > 1) {
    s.totalRssMB = s.phase.rssBudgetMB * s.jobs;
    llvm::Expected<uint64_t> avail = q2::profiling::readMemAvailable();
    if (avail) {
      double mb = 0.8 * double(*avail) / 1e6;
      if (mb > 0 && mb < s.totalRssMB)
        s.totalRssMB = mb;
    } else {
      llvm::consumeError(avail.takeError());
    }
  }
  s.outDir = absolute(s.outDir);
  if (!s.vars.count("q2_qpe"))
    s.vars["q2_qpe"] =
        o.QpeTool.empty() ? siblingTool(argv0, "q2-qpe") : o.QpeTool;
  if (!s.vars.count("q2_opt"))
    s.vars["q2_opt"] =
        o.OptTool.empty() ? siblingTool(argv0, "q2-opt") : o.OptTool;
}

/// Progress on a terminal only, never in CI logs.
class ProgressLine {
public:
  explicit ProgressLine(bool disabled) {
    const char *ci = getenv("CI");
    enabled = !disabled && isatty(STDERR_FILENO) && (!ci || !*ci);
  }
  void operator()(const ProgressEvent &e) {
    if (!enabled)
      return;
    std::string line = llvm::formatv("[{0}/{1}] {2} running, elapsed {3}",
                                     e.done, e.total, e.running,
                                     duration(e.elapsedS))
                           .str();
    line += ", ETA " + (e.etaS < 0 ? std::string("?") : duration(e.etaS));
    if (e.kind == ProgressEvent::Finished && e.status != "ok")
      errs() << "\r\x1b[K" << e.point.key() << ": " << e.status << "\n";
    if (e.kind == ProgressEvent::Started)
      line += " | started " + e.point.key();
    errs() << "\r\x1b[K" << line;
    errs().flush();
    dirty = true;
  }
  ~ProgressLine() {
    if (dirty)
      errs() << "\r\x1b[K";
  }

private:
  static std::string duration(double s) {
    if (s < 120)
      return llvm::formatv("{0:f1}s", s).str();
    unsigned t = unsigned(s);
    return llvm::formatv("{0}m{1:d2}s", t / 60, t % 60).str();
  }
  bool enabled;
  bool dirty = false;
};

int emitJobs(const SweepSpec &s, const std::string &file,
             const char *argv0) {
  std::string common =
      shellQuote(selfPath(argv0)) + " sweep --out " + shellQuote(s.outDir);
  for (const auto &m : s.molecules)
    common += " --molecule " +
              shellQuote(m.name + "=" + m.hamiltonian +
                         (m.nTerms ? ":" + std::to_string(m.nTerms) : ""));
  common += " --phase-a " + shellQuote(joinTemplate(s.commands.phaseA));
  common += " --phase-bc " + shellQuote(joinTemplate(s.commands.phaseBC));
  for (const auto &kv : s.vars)
    common += " --var " + shellQuote(kv.first + "=" + kv.second);
  // %.17g: the job must get exactly the budgets given here.
  common += " --runs " + std::to_string(s.runs) + " --wall-s " +
            num(s.phase.wallBudgetS) + " --point-rss-mb " + num(s.phase.rssBudgetMB) +
            " --poll-ms " + num(s.phase.pollS * 1000) + " --no-progress";
  if (s.retryFailed)
    common += " --retry-failed";
  std::string text;
  std::vector<PointId> ids = enumeratePoints(s);
  for (const auto &id : ids)
    text += common + " --grid " + std::to_string(id.nEst) + "x" +
            std::to_string(id.nTrotter) + " --modes " + shellQuote(id.mode) +
            " --only " + shellQuote(id.key()) + "\n";
  if (llvm::Error e = q2::writeFileAtomically(file, text))
    return fail("--emit-jobs: " + llvm::toString(std::move(e)));
  errs() << "q2-profile: wrote " << ids.size() << " jobs to " << file << "\n";
  return 0;
}

int runSpec(SweepSpec &s, bool noProgress) {
  installInterruptHandler();
  s.cancel = &Interrupted;
  s.cancelSignal = &InterruptSignal;
  std::optional<ProgressLine> line(std::in_place, noProgress);
  llvm::Expected<SweepSummary> sum =
      runSweep(s, [&](const ProgressEvent &e) { (*line)(e); });
  line.reset(); // Clears the progress line before the table.
  if (!sum)
    return fail(llvm::toString(sum.takeError()));
  std::vector<PointRecord> results = resultsOf(*sum);
  outs() << summaryTable(results);
  // Failures of the machinery (not of the point) have no result.json to
  // look into: say why here.
  for (const PointRecord &r : results)
    if (r.reason == "error" && r.message)
      errs() << "q2-profile: " << r.key << ": " << *r.message << "\n";
  errs() << "q2-profile: " << sum->ran << " run, " << sum->skipped
         << " skipped (already done), " << sum->failed << " failed";
  if (s.only.empty())
    errs() << "; summary in " << s.outDir << "/summary.{txt,csv}";
  errs() << "\n";
  if (sum->cancelled) {
    int sig = InterruptSignal.load();
    errs() << "q2-profile: interrupted"
           << (sig ? " by " + signalName(sig) : std::string())
           << "; rerun the same command to resume\n";
    return 130;
  }
  // Every point is written; the status tells a script that some failed.
  return sum->failed ? kExitPointsFailed : 0;
}

} // namespace

int q2::orch::profile_tool::cmdSweep(Options &o, const char *argv0) {
  llvm::Expected<SweepSpec> spec = pointSpec(o);
  if (!spec)
    return fail(llvm::toString(spec.takeError()));
  SweepSpec &s = *spec;
  for (const std::string &v : o.Molecules) {
    Molecule m;
    if (!parseMolecule(v, m))
      return fail("--molecule: expected NAME=FILE[:N_TERMS], got '" + v +
                  "'");
    s.molecules.push_back(m);
  }
  if (o.Grid.getNumOccurrences()) {
    auto g = parseGrid(o.Grid);
    if (!g)
      return fail("--grid: " + llvm::toString(g.takeError()));
    s.grid = *g;
  }
  if (o.Modes.getNumOccurrences()) {
    s.modes.clear();
    llvm::SmallVector<StringRef, 4> parts;
    StringRef(o.Modes).split(parts, ',', -1, false);
    for (StringRef p : parts)
      if (!p.trim().empty())
        s.modes.push_back(p.trim().str());
    if (s.modes.empty())
      return fail("--modes: empty");
  }
  if (o.Jobs == 0)
    return fail("--jobs: expected a positive integer, got 0");
  s.jobs = o.Jobs;
  if (o.TotalRss.getNumOccurrences()) {
    if (!std::isfinite(o.TotalRss) || o.TotalRss <= 0)
      return fail("--rss-budget-mb: expected a finite positive number");
    s.totalRssMB = o.TotalRss;
  }
  s.only.assign(o.Only.begin(), o.Only.end());
  s.retryFailed = o.RetryFailed;
  if (s.outDir.empty())
    return fail("sweep: --out DIR is required");
  if (s.molecules.empty()) {
    llvm::Expected<Molecule> m =
        defaultMolecule(examplesDirFor(selfPath(argv0)));
    if (!m)
      return fail(llvm::toString(m.takeError()));
    s.molecules.push_back(*m);
  }
  finalizeSpec(o, s, argv0);
  if (llvm::Error e = validateSweepSpec(s))
    return fail(llvm::toString(std::move(e)));
  if (!o.EmitJobs.empty())
    return emitJobs(s, o.EmitJobs, argv0);
  return runSpec(s, o.NoProgress);
}

int q2::orch::profile_tool::cmdRun(Options &o, const char *argv0) {
  llvm::Expected<SweepSpec> spec = pointSpec(o);
  if (!spec)
    return fail(llvm::toString(spec.takeError()));
  SweepSpec &s = *spec;
  if (s.outDir.empty() || o.Ham.empty() || !o.NEst || !o.NTrotter)
    return fail("run: --out, --ham, --n-est and --n-trotter are required");
  if (!llvm::sys::fs::exists(o.Ham))
    return fail(o.Ham + ": no such file");
  s.molecules = {{o.RunMolecule, absolute(o.Ham), o.NTerms}};
  s.grid = {{o.NEst, o.NTrotter}};
  switch (o.Mode) {
  case RunMode::Fixed:
    s.modes = {"fixed"};
    break;
  case RunMode::Dynamic:
    s.modes = {"dynamic"};
    break;
  case RunMode::Both:
    s.modes = {"fixed", "dynamic"};
    break;
  }
  finalizeSpec(o, s, argv0);
  if (llvm::Error e = validateSweepSpec(s))
    return fail(llvm::toString(std::move(e)));
  return runSpec(s, o.NoProgress);
}
