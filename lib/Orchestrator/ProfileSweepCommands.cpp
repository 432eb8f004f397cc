//===- ProfileSweepCommands.cpp - q2-profile run and sweep ----------------===//
//
// From the options of `run` and `sweep` to a SweepSpec (one point, or a
// grid), then either the job file of --emit-jobs or runSweep with the
// progress line; the exit status of a finished sweep.
//
//===----------------------------------------------------------------------===//

#include "ProfileToolOptions.h"
#include "SweepInternal.h"
#include "q2/Orchestrator/Sweep.h"
#include "q2/Orchestrator/SweepSlurm.h"
#include "q2/Support/FileIO.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>
#include <unistd.h>

using namespace q2::orch;
using namespace q2::orch::profile_tool;
using llvm::errs;
using llvm::outs;
using q2::orch::sweep_detail::shellQuote;

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
    // Where the array went is worth a line in any log.
    if (e.kind == ProgressEvent::Submitted)
      errs() << (dirty ? "\r\x1b[K" : "")
             << "q2-profile: submitted Slurm array job " << e.detail << "\n";
    if (!enabled || e.kind == ProgressEvent::Submitted)
      return;
    std::string line = llvm::formatv("[{0}/{1}] ", e.done, e.total).str();
    if (e.failed)
      line += std::to_string(e.failed) + " failed, ";
    line += std::to_string(e.running) + " running, ";
    if (e.queued)
      line += std::to_string(e.queued) + " queued, ";
    line += "elapsed " + duration(e.elapsedS);
    line += ", ETA " + (e.etaS < 0 ? std::string("?") : duration(e.etaS));
    if (e.kind == ProgressEvent::Finished && e.status != "ok")
      errs() << "\r\x1b[K" << e.point.key() << ": " << e.status << "\n";
    if (e.kind == ProgressEvent::Started)
      line += " | started " + e.point.key() +
              (e.detail.empty() ? "" : " (" + e.detail + ")");
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
  std::string resume =
      "q2-profile sweep --resume --out " + shellQuote(s.outDir);
  if (sum->retryable)
    errs() << "q2-profile: " << sum->retryable
           << " failed point(s) are retryable (node failure, task died); `"
           << resume << "` reruns them\n";
  if (sum->cancelled) {
    int sig = InterruptSignal.load();
    errs() << "q2-profile: interrupted"
           << (sig ? " by " + signalName(sig) : std::string())
           << (s.executor == SweepExecutor::Slurm
                   ? "; the array is cancelled; `" + resume + "` resumes\n"
                   : std::string("; rerun the same command to resume\n"));
    return 130;
  }
  if (sum->missing)
    errs() << "q2-profile: " << sum->missing
           << " point(s) missing (their Slurm tasks were cancelled); `"
           << resume << "` submits them again\n";
  if (sum->inFlight) {
    errs() << "q2-profile: " << sum->inFlight
           << " point(s) queued or running in Slurm; `q2-profile status "
           << shellQuote(s.outDir) << "` shows them, `" << resume
           << "` waits for them\n";
    return 0;
  }
  // Every point is written; the status tells a script that some failed.
  return sum->failed || sum->missing ? kExitPointsFailed : 0;
}

} // namespace

namespace {

/// The options that only act with --executor slurm: refused otherwise.
const char *slurmOnlyOption(Options &o) {
  if (o.Partition.getNumOccurrences())
    return "--partition";
  if (o.Account.getNumOccurrences())
    return "--account";
  if (o.MaxParallel.getNumOccurrences())
    return "--max-parallel";
  if (o.SbatchArgs.getNumOccurrences())
    return "--sbatch-arg";
  if (o.SlurmPoll.getNumOccurrences())
    return "--slurm-poll-s";
  if (o.NoWait.getNumOccurrences())
    return "--no-wait";
  return nullptr;
}

/// --jobs, --rss-budget-mb and --retry-failed onto a new or resumed spec.
int applyLocalOptions(Options &o, SweepSpec &s) {
  if (o.Jobs == 0)
    return fail("--jobs: expected a positive integer, got 0");
  if (o.Jobs.getNumOccurrences())
    s.jobs = o.Jobs;
  if (o.TotalRss.getNumOccurrences()) {
    if (!std::isfinite(o.TotalRss) || o.TotalRss <= 0)
      return fail("--rss-budget-mb: expected a finite positive number");
    s.totalRssMB = o.TotalRss;
  }
  s.retryFailed = o.RetryFailed;
  return 0;
}

/// The executor and its options, onto a new or resumed spec.
int applyExecutor(Options &o, SweepSpec &s, const char *argv0) {
  if (o.Executor.getNumOccurrences())
    s.executor = o.Executor;
  if (s.executor != SweepExecutor::Slurm) {
    s.slurm = SlurmOptions();
    if (const char *flag = slurmOnlyOption(o))
      return fail(llvm::Twine(flag) + " needs --executor slurm");
    return 0;
  }
  if (!o.EmitJobs.empty())
    return fail("--emit-jobs writes the job lines and runs nothing; it does "
                "not go with --executor slurm");
  if (!s.only.empty())
    return fail("--only needs the local executor (a Slurm sweep submits "
                "every point that is not finished)");
  if (o.Partition.getNumOccurrences())
    s.slurm.partition = o.Partition;
  if (o.Account.getNumOccurrences())
    s.slurm.account = o.Account;
  if (o.MaxParallel.getNumOccurrences())
    s.slurm.maxParallel = o.MaxParallel;
  if (o.SbatchArgs.getNumOccurrences())
    s.slurm.sbatchArgs.assign(o.SbatchArgs.begin(), o.SbatchArgs.end());
  if (o.SlurmPoll.getNumOccurrences()) {
    if (!std::isfinite(o.SlurmPoll) || o.SlurmPoll <= 0)
      return fail("--slurm-poll-s: expected a finite positive number, got " +
                  shortNum(o.SlurmPoll));
    s.slurm.pollS = o.SlurmPoll;
  }
  s.slurm.wait = !o.NoWait;
  // The tasks run this q2-profile (on a path the nodes share).
  s.slurm.q2Profile = selfPath(argv0);
  return 0;
}

/// The options that make the points of a sweep: not with --resume.
const char *pointOption(Options &o) {
  // (cl::list overloads operator&.)
  cl::Option *const points[] = {std::addressof(o.Molecules),
                                &o.Grid,
                                &o.Modes,
                                &o.PhaseA,
                                &o.PhaseBC,
                                std::addressof(o.Vars),
                                &o.Runs,
                                &o.Wall,
                                &o.PointRss,
                                &o.Poll,
                                &o.QpeTool,
                                &o.OptTool,
                                std::addressof(o.Only)};
  for (cl::Option *opt : points)
    if (opt->getNumOccurrences())
      return opt->ArgStr.data();
  return nullptr;
}

/// `sweep --resume --out DIR`: the spec DIR was started with.
int cmdResume(Options &o, const char *argv0) {
  if (o.Out.empty())
    return fail("--resume: --out DIR is required");
  if (const char *flag = pointOption(o))
    return fail("--" + llvm::Twine(flag) +
                ": a resumed sweep keeps the points it was started with (" +
                o.Out + "/sweep.json); drop --" + flag +
                " or start a sweep without --resume");
  std::string file = absolute(o.Out) + "/sweep.json";
  if (!llvm::sys::fs::exists(file))
    return fail("--resume: '" + file + "' not found (no sweep to resume)");
  llvm::Expected<SweepSpec> spec = readSweepSpec(file);
  if (!spec)
    return fail(llvm::toString(spec.takeError()));
  SweepSpec &s = *spec;
  s.outDir = absolute(o.Out);
  if (int rc = applyLocalOptions(o, s))
    return rc;
  if (!o.EmitJobs.empty())
    return fail("--emit-jobs does not go with --resume");
  if (int rc = applyExecutor(o, s, argv0))
    return rc;
  if (llvm::Error e = validateSweepSpec(s))
    return fail(llvm::toString(std::move(e)));
  return runSpec(s, o.NoProgress);
}

/// `sweep --slurm-task OUT/slurm/<n>` inside array task $SLURM_ARRAY_TASK_ID.
int cmdSlurmTask(Options &o) {
  const char *task = getenv("SLURM_ARRAY_TASK_ID");
  const char *job = getenv("SLURM_ARRAY_JOB_ID");
  unsigned taskId;
  if (!task || !job || StringRef(task).getAsInteger(10, taskId))
    return fail("--slurm-task runs inside a task of a Slurm job array "
                "(SLURM_ARRAY_TASK_ID and SLURM_ARRAY_JOB_ID are not set)");
  const char *node = getenv("SLURMD_NODENAME");
  llvm::Expected<SweepSpec> spec =
      slurmTaskSpec(o.SlurmTask, job, taskId, node ? node : "");
  if (!spec)
    return fail(llvm::toString(spec.takeError()));
  errs() << "q2-profile: Slurm task " << spec->slurmTask->jobId << " on "
         << (node ? node : "?") << ": point " << spec->only.front() << "\n";
  return runSpec(*spec, /*noProgress=*/true);
}

} // namespace

int q2::orch::profile_tool::cmdStatus(Options &o) {
  if (o.StatusDir.empty())
    return fail("status: no sweep directory given");
  std::string dir = absolute(o.StatusDir);
  llvm::Expected<std::vector<PointStatus>> st = sweepStatus(dir);
  if (!st)
    return fail(llvm::toString(st.takeError()));
  std::vector<std::vector<std::string>> rows = {
      {"key", "state", "slurm_job", "node", "detail"}};
  std::map<std::string, size_t> counts;
  for (const PointStatus &p : *st) {
    ++counts[p.state];
    std::string node, detail;
    if (p.task) {
      node = p.task->node;
      detail = p.task->state == "PENDING"
                   ? "pending (" + p.task->reason + ")"
                   : "running for " +
                         llvm::formatv("{0:f0}", p.task->elapsedS).str() + " s";
    } else if (p.record) {
      if (p.record->slurm)
        node = p.record->slurm->node;
      if (p.record->status != "ok")
        detail = p.record->reason +
                 (p.record->message ? ": " + *p.record->message : "");
    } else if (p.state == "ended") {
      detail = "its task ended without a result; --resume records why";
    }
    rows.push_back({p.id.key(), p.state, p.jobId, node, detail});
  }
  std::vector<size_t> width(5, 0);
  for (const auto &r : rows)
    for (size_t i = 0; i < 4; ++i)
      width[i] = std::max(width[i], r[i].size());
  for (const auto &r : rows) {
    std::string line;
    for (size_t i = 0; i < 5; ++i) {
      std::string cell = r[i];
      if (i < 4)
        cell.resize(width[i], ' ');
      line += cell + (i < 4 ? "  " : "");
    }
    outs() << StringRef(line).rtrim() << "\n";
  }
  outs() << st->size() << " points";
  for (const char *k :
       {"ok", "failed", "retryable", "running", "queued", "ended", "missing"})
    outs() << ", " << counts[k] << " " << k;
  outs() << "\n";
  return 0;
}

namespace {

/// A new sweep from the options.
int newSweep(Options &o, const char *argv0) {
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
  if (int rc = applyLocalOptions(o, s))
    return rc;
  s.only.assign(o.Only.begin(), o.Only.end());
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
  if (int rc = applyExecutor(o, s, argv0))
    return rc;
  if (llvm::Error e = validateSweepSpec(s))
    return fail(llvm::toString(std::move(e)));
  if (!o.EmitJobs.empty())
    return emitJobs(s, o.EmitJobs, argv0);
  return runSpec(s, o.NoProgress);
}

} // namespace

int q2::orch::profile_tool::cmdSweep(Options &o, const char *argv0) {
  if (!o.SlurmTask.empty())
    return cmdSlurmTask(o);
  if (o.Resume)
    return cmdResume(o, argv0);
  return newSweep(o, argv0);
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
