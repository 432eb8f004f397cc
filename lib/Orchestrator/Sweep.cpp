//===- Sweep.cpp - sweep specs, grids and one point -----------------------===//
//
// What a sweep is (its spec, grid, points and their validation), the peak
// RSS model that admits points, and runPoint: one point's phases as
// budgeted child processes. The scheduler that runs many is in
// SweepScheduler.cpp, records and summaries in SweepResults.cpp.
//
//===----------------------------------------------------------------------===//

#include "q2/Orchestrator/Sweep.h"
#include "q2/Orchestrator/Measure.h"

#include "q2/Orchestrator/RecordFields.h"
#include "q2/QPE/QPEMetadata.h"
#include "SweepInternal.h"
#include "q2/Support/FileIO.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <thread>

using namespace q2::orch;
using namespace q2::orch::sweep_detail;
using llvm::createStringError;
using llvm::Error;
using llvm::Expected;
namespace json = q2::json;

namespace {

/// The same "name" with the characters kept in keys.
std::string safeName(llvm::StringRef name) {
  std::string safe;
  for (char c : name)
    safe += (llvm::isAlnum(c) || c == '.' || c == '_' || c == '-') ? c
            : c == '+'                                            ? 'p'
                                                                  : '_';
  return safe;
}

std::string substitute(const std::string &word,
                       const std::map<std::string, std::string> &vars) {
  std::string out;
  for (size_t i = 0; i < word.size();) {
    if (word[i] == '{') {
      size_t end = word.find('}', i);
      if (end != std::string::npos) {
        auto it = vars.find(word.substr(i + 1, end - i - 1));
        if (it != vars.end()) {
          out += it->second;
          i = end + 1;
          continue;
        }
      }
    }
    out += word[i++];
  }
  return out;
}

/// Held while a process runs (or deletes) the point; outside the point's
/// directory, which is removed and recreated under it.
std::string pointLockPath(const SweepSpec &spec, const PointId &id) {
  return joinPath(spec.outDir, "points", id.key() + ".lock");
}

} // namespace

//===----------------------------------------------------------------------===//
// Shared with the scheduler and the results (SweepInternal.h)
//===----------------------------------------------------------------------===//

namespace q2::orch::sweep_detail {

std::string joinPath(llvm::StringRef a, llvm::StringRef b,
                     llvm::StringRef c) {
  llvm::SmallString<256> p(a);
  llvm::sys::path::append(p, b);
  if (!c.empty())
    llvm::sys::path::append(p, c);
  return std::string(p);
}

std::string pointDir(const SweepSpec &spec, const PointId &id) {
  return joinPath(spec.outDir, "points", id.key());
}

Expected<q2::FileLock> lockPoint(const SweepSpec &spec, const PointId &id) {
  return q2::FileLock::acquire(pointLockPath(spec, id), /*wait=*/false,
                               "point '" + id.key() + "'");
}

/// When runPoint could not run a point because another process holds it
/// (a --only sweep on the same directory), waits for that process and
/// takes the result it wrote: the summary must not call a point failed
/// that its own result.json calls ok. Other errors stay errors.
Expected<PointResult> resultOfConcurrentRun(const SweepSpec &spec,
                                            const PointId &id, Error why) {
  // An --only job writes no summary: it reports the point as not run.
  if (!spec.only.empty())
    return std::move(why);
  std::string resultFile = joinPath(pointDir(spec, id), "result.json");
  // Polled, so that cancelling the sweep still stops it.
  for (;;) {
    Expected<q2::FileLock> held =
        q2::FileLock::acquire(pointLockPath(spec, id), /*wait=*/false);
    if (held)
      break;
    llvm::consumeError(held.takeError());
    if (spec.cancel && spec.cancel->load())
      return std::move(why);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!llvm::sys::fs::exists(resultFile))
    return std::move(why);
  Expected<PointRecord> rec = readPointRecord(resultFile);
  if (!rec) {
    llvm::consumeError(rec.takeError());
    return std::move(why);
  }
  llvm::consumeError(std::move(why));
  PointResult r;
  r.id = id;
  r.record = std::move(*rec);
  return r;
}

/// Removes, in Dir and its subdirectories, temporaries of atomic writes
/// ("<name>.q2tmp-<pid>-<n>", q2/Support/FileIO.h) whose writer is dead,
/// e.g. a q2-opt killed by its budget while writing its report, or a
/// q2-profile killed while writing result.json.

void removeStaleTemporariesIn(const std::string &dir, int depth) {
  std::error_code ec;
  std::set<std::string> targets;
  std::vector<std::string> subdirs;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    if (q2::isTemporaryName(name))
      targets.insert(joinPath(dir, name.take_front(name.rfind(".q2tmp-"))));
    else if (it->type() == llvm::sys::fs::file_type::directory_file)
      subdirs.push_back(it->path());
  }
  for (const std::string &t : targets)
    q2::removeStaleTemporaries(t);
  if (depth > 0)
    for (const std::string &d : subdirs)
      removeStaleTemporariesIn(d, depth - 1);
}

/// Quoted for a POSIX shell: as is when only safe characters occur.
std::string shellQuote(const std::string &s) {
  // Braces are safe unless they could form a brace expansion ({a,b}, {1..3}).
  bool braces = s.find_first_of("{}") != std::string::npos;
  bool expansion = braces && (s.find(',') != std::string::npos ||
                              s.find("..") != std::string::npos);
  if (!s.empty() && !expansion &&
      s.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                          "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                          "0123456789-_./=:,+@%{}") == std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

Expected<std::string> readTextFile(llvm::StringRef path, uint64_t maxBytes) {
  auto buf = q2::readInputFile(path, maxBytes);
  if (!buf)
    return buf.takeError();
  return (*buf)->getBuffer().str();
}

std::optional<PointRecord> readResultIfAny(const SweepSpec &spec,
                                           const PointId &id) {
  std::string file = joinPath(pointDir(spec, id), "result.json");
  if (!llvm::sys::fs::exists(file))
    return std::nullopt;
  Expected<PointRecord> rec = readPointRecord(file);
  if (!rec) {
    llvm::consumeError(rec.takeError());
    return std::nullopt;
  }
  return std::move(*rec);
}

const Molecule *findMolecule(const SweepSpec &spec, const std::string &name) {
  for (const auto &m : spec.molecules)
    if (m.name == name)
      return &m;
  return nullptr;
}

/// The identifying fields of a point's record.
PointRecord recordFor(const PointId &id, const Molecule *mol) {
  PointRecord r;
  r.key = id.key();
  r.molecule = id.molecule;
  r.hamiltonian = mol ? mol->hamiltonian : "";
  r.mode = id.mode;
  r.nEst = id.nEst;
  r.nTrotter = id.nTrotter;
  return r;
}

} // namespace q2::orch::sweep_detail

//===----------------------------------------------------------------------===//
// Example data
//===----------------------------------------------------------------------===//

std::string q2::orch::examplesDirFor(llvm::StringRef executable) {
  llvm::SmallString<256> p(llvm::sys::path::parent_path(executable));
  llvm::sys::path::append(p, "..", "share", "q2", "examples");
  llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true);
  return std::string(p);
}

Expected<Molecule> q2::orch::defaultMolecule(llvm::StringRef examplesDir) {
  std::string file =
      joinPath(examplesDir, "hamiltonians", "h2_0.7414.FCIDUMP");
  if (!llvm::sys::fs::is_regular_file(file))
    return createStringError(
        "no default molecule: '" + file +
        "' not found (example data is looked for in <dir of the "
        "executable>/../share/q2/examples); give --molecule NAME=FILE");
  return Molecule{"h2", file, 15};
}

//===----------------------------------------------------------------------===//
// Grid, points, templates
//===----------------------------------------------------------------------===//

std::vector<GridPoint> q2::orch::defaultH2Grid() {
  return {{2, 1}, {2, 3}, {2, 5}, {3, 3}, {3, 5}, {4, 3}, {4, 5}, {4, 10}};
}

Expected<std::vector<GridPoint>> q2::orch::parseGrid(llvm::StringRef text) {
  std::vector<GridPoint> grid;
  llvm::SmallVector<llvm::StringRef, 16> items;
  text.split(items, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef item : items) {
    auto [E, T] = item.trim().split('x');
    GridPoint p;
    if (E.getAsInteger(10, p.nEst) || T.getAsInteger(10, p.nTrotter) ||
        p.nEst == 0 || p.nTrotter == 0)
      return createStringError("bad grid point '" + item +
                       "' (expected N_ESTxN_TROTTER, e.g. 2x3)");
    grid.push_back(p);
  }
  if (grid.empty())
    return createStringError("empty grid");
  return grid;
}

const char *q2::orch::executorName(SweepExecutor e) {
  return e == SweepExecutor::Slurm ? "slurm" : "local";
}

std::optional<SweepExecutor> q2::orch::parseExecutor(llvm::StringRef name) {
  if (name == "local")
    return SweepExecutor::Local;
  if (name == "slurm")
    return SweepExecutor::Slurm;
  return std::nullopt;
}

llvm::StringRef q2::orch::toString(SweepExecutor e) { return executorName(e); }

std::optional<SweepExecutor> q2::orch::parseEnum(llvm::StringRef s,
                                                 SweepExecutor *) {
  return parseExecutor(s);
}

bool q2::orch::isFinished(const PointRecord &r, bool retryFailed) {
  return r.status == "ok" ||
         (r.status == "failed" && !r.retryable && !retryFailed);
}

std::string PointId::key() const {
  return safeName(molecule) + "-" + mode + "-e" + std::to_string(nEst) +
         "-t" + std::to_string(nTrotter);
}

CommandTemplates q2::orch::defaultCommandTemplates() {
  CommandTemplates t;
  t.phaseA = {"{q2_qpe}", "{ham}",         "--mode",      "{mode}",
              "--n-est",  "{n_est}",       "--n-trotter", "{n_trotter}",
              "-o",       "{prog}"};
  t.phaseBC = {"{q2_opt}", "--profile-stages", "--run",    "{runs}",
               "{prog}",   "--report",         "{report}"};
  return t;
}

std::vector<PointId> q2::orch::enumeratePoints(const SweepSpec &spec) {
  std::vector<PointId> out;
  for (const auto &m : spec.molecules)
    for (const auto &g : spec.grid)
      for (const auto &mode : spec.modes) {
        PointId id{m.name, mode, g.nEst, g.nTrotter};
        if (spec.only.empty() ||
            std::find(spec.only.begin(), spec.only.end(), id.key()) !=
                spec.only.end())
          out.push_back(id);
      }
  return out;
}

Error q2::orch::validateSweepSpec(const SweepSpec &spec) {
  // Every refusal is about a value (embedders map it to ValueError).
  const std::error_code invalid =
      std::make_error_code(std::errc::invalid_argument);
  if (spec.outDir.empty())
    return createStringError(invalid, "no sweep directory given");
  if (spec.molecules.empty())
    return createStringError(invalid, "sweep has no molecule");
  if (spec.grid.empty() || spec.modes.empty())
    return createStringError(invalid, "sweep has an empty grid or no mode");
  for (const auto &g : spec.grid) // as parseGrid refuses them
    if (g.nEst == 0 || g.nTrotter == 0)
      return createStringError(
          invalid, "bad grid point " + std::to_string(g.nEst) + "x" +
                       std::to_string(g.nTrotter) +
                       ": n_est and n_trotter must be at least 1");
  for (const auto &mode : spec.modes)
    if (mode.empty() || mode.find('/') != std::string::npos || mode == "." ||
        mode == "..")
      return createStringError(invalid, "bad mode '" + mode + "'");
  for (const auto &m : spec.molecules)
    if (m.name.empty())
      return createStringError(invalid, "molecule with an empty name (file '" +
                                            m.hamiltonian + "')");
  auto positive = [&](double v, const char *what) -> Error {
    if (!std::isfinite(v) || v <= 0)
      return createStringError(invalid,
                               llvm::Twine(what) +
                                   " must be a finite positive number, got " +
                                   std::to_string(v));
    return Error::success();
  };
  if (Error e = positive(spec.phase.wallBudgetS, "phase wall budget (s)"))
    return e;
  if (Error e = positive(spec.phase.rssBudgetMB, "point RSS budget (MB)"))
    return e;
  if (spec.totalRssMB != 0)
    if (Error e = positive(spec.totalRssMB, "total RSS budget (MB)"))
      return e;
  if (!std::isfinite(spec.phase.killGraceS) || spec.phase.killGraceS < 0)
    return createStringError(invalid,
                             "kill grace must be a finite non-negative number");
  if (Error e = checkPollInterval(spec.phase.pollS, spec.phase.wallBudgetS))
    return e;
  const SlurmOptions &so = spec.slurm;
  if (spec.executor == SweepExecutor::Local) {
    // No silent options: these mean something to Slurm only.
    const char *slurmOnly = !so.partition.empty()    ? "a partition"
                            : !so.account.empty()    ? "an account"
                            : so.maxParallel         ? "max_parallel"
                            : !so.sbatchArgs.empty() ? "sbatch arguments"
                            : !so.wait               ? "not waiting"
                            : so.pollS != SlurmOptions().pollS
                                ? "a Slurm poll interval"
                                : nullptr;
    if (slurmOnly)
      return createStringError(invalid, llvm::Twine(slurmOnly) +
                                            " needs the slurm executor");
  } else {
    if (Error e = positive(so.pollS, "Slurm poll interval (s)"))
      return e;
    if (so.q2Profile.empty() || !llvm::sys::fs::can_execute(so.q2Profile))
      return createStringError(
          invalid, "the slurm executor needs the q2-profile its tasks run "
                   "(absolute, on a path the nodes share): '" +
                       so.q2Profile + "' is not an executable");
    for (const std::string &a : so.sbatchArgs)
      if (a.empty() || a.find('\0') != std::string::npos)
        return createStringError(invalid, "empty sbatch argument");
    for (const std::string *v : {&so.partition, &so.account})
      if (v->find_first_of(" \t\n") != std::string::npos)
        return createStringError(invalid,
                                 "bad partition or account '" + *v + "'");
  }
  // Keys name directories: two points with one key would overwrite each
  // other's results (and resume would list one twice).
  SweepSpec all = spec;
  all.only.clear();
  std::map<std::string, PointId> seen;
  auto describe = [](const PointId &id) {
    return "molecule '" + id.molecule + "' mode '" + id.mode + "' " +
           std::to_string(id.nEst) + "x" + std::to_string(id.nTrotter);
  };
  for (const PointId &id : enumeratePoints(all)) {
    auto [It, New] = seen.emplace(id.key(), id);
    if (New)
      continue;
    const PointId &old = It->second;
    if (old.molecule == id.molecule && old.mode == id.mode &&
        old.nEst == id.nEst && old.nTrotter == id.nTrotter)
      return createStringError(invalid, "point '" + id.key() +
                                            "' appears twice (" + describe(id) +
                                            " is given twice)");
    return createStringError(invalid,
                             "point key '" + id.key() + "' is shared by " +
                                 describe(old) + " and " + describe(id) +
                                 " (keys keep letters, digits, '.', '_' and "
                                 "'-' of a molecule name, '+' becomes 'p'); "
                                 "rename one");
  }
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Peak RSS model
//===----------------------------------------------------------------------===//

void PeakRssModel::add(double x, double peakMb) {
  if (!std::isfinite(x) || !std::isfinite(peakMb))
    return;
  Xs.push_back(x);
  Ys.push_back(peakMb);
  refit();
}

void PeakRssModel::refit() {
  size_t n = Xs.size();
  double mx = 0, my = 0;
  for (size_t i = 0; i < n; ++i) {
    mx += Xs[i];
    my += Ys[i];
  }
  mx /= double(n);
  my /= double(n);
  double sxx = 0, sxy = 0;
  for (size_t i = 0; i < n; ++i) {
    sxx += (Xs[i] - mx) * (Xs[i] - mx);
    sxy += (Xs[i] - mx) * (Ys[i] - my);
  }
  // Centered sums: a fit of peaks in the hundreds of MB against x in the
  // thousands stays well conditioned.
  Fitted = n >= 2 && sxx > 1e-12 * std::max(1.0, mx * mx);
  if (Fitted) {
    B = sxy / sxx;
    A = my - B * mx;
  }
}

bool PeakRssModel::fitted() const { return Fitted; }

double PeakRssModel::predict(double x) const {
  if (!Fitted)
    return std::min(Conservative, Cap);
  double p = 1.25 * (A + B * x);
  for (size_t i = 0; i < Xs.size(); ++i)
    if (Xs[i] <= x)
      p = std::max(p, Ys[i]);
  return std::min(std::max(p, 0.0), Cap);
}

//===----------------------------------------------------------------------===//
// One point
//===----------------------------------------------------------------------===//

Expected<PointResult> q2::orch::runPoint(const SweepSpec &spec,
                                         const PointId &id,
                                         unsigned nTermsHint) {
  const Molecule *mol = findMolecule(spec, id.molecule);
  if (!mol)
    return createStringError("unknown molecule '" + id.molecule + "'");
  std::string dir = pointDir(spec, id);
  if (std::error_code ec =
          llvm::sys::fs::create_directories(joinPath(spec.outDir, "points")))
    return createStringError("cannot create '" + spec.outDir +
                             "/points': " + ec.message());
  // Another process running this point must not see its directory removed.
  Expected<q2::FileLock> lock = lockPoint(spec, id);
  if (!lock)
    return lock.takeError();
  // A directory without result.json is what an interrupted run left.
  if (llvm::sys::fs::exists(dir))
    if (std::error_code ec = llvm::sys::fs::remove_directories(dir))
      return createStringError("cannot remove partial '" + dir +
                               "': " + ec.message());
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return createStringError("cannot create '" + dir + "': " + ec.message());

  std::map<std::string, std::string> vars = spec.vars;
  vars["ham"] = mol->hamiltonian;
  vars["molecule"] = mol->name;
  vars["mode"] = id.mode;
  vars["n_est"] = std::to_string(id.nEst);
  vars["n_trotter"] = std::to_string(id.nTrotter);
  vars["runs"] = std::to_string(spec.runs);
  vars["point_dir"] = dir;
  vars["prog"] = joinPath(dir, "prog.mlir");
  vars["report"] = joinPath(dir, "report.json");

  PointResult result;
  result.id = id;
  PointRecord &r = result.record;
  r = recordFor(id, mol);
  r.status = "ok";
  r.slurm = spec.slurmTask;

  auto fail = [&](const char *phase, llvm::StringRef reason,
                  std::string message) {
    r.status = "failed";
    r.failedPhase = phase;
    r.reason = reason.str();
    r.message = std::move(message);
  };
  auto runPhase = [&](const char *name,
                      const std::vector<std::string> &Template,
                      std::optional<MeasureRecord> &slot) -> bool {
    MeasureOptions mo;
    for (const auto &w : Template)
      mo.argv.push_back(substitute(w, vars));
    mo.outDir = joinPath(dir, name);
    mo.cwd = dir;
    static_cast<MeasureBudget &>(mo) = spec.phase;
    mo.cancel = spec.cancel;
    mo.cancelSignal = spec.cancelSignal;
    mo.liveRecord = spec.slurmTask.has_value();
    Expected<MeasureRecord> rec = measure(mo);
    if (!rec) {
      fail(name, "refused", llvm::toString(rec.takeError()));
      return false;
    }
    slot = *rec;
    r.wallS += rec->wallS;
    r.peakRssMB = std::max(r.peakRssMB, rec->peakTreeRssMB);
    // A phase that failed while the sweep was being cancelled was probably
    // signalled with us (a Slurm task's processes all get scancel's
    // SIGTERM): not a result.
    bool failed = rec->reason != StopReason::Exit || rec->exitCode != 0;
    if (rec->reason == StopReason::Cancelled ||
        (failed && spec.cancel && spec.cancel->load())) {
      r.status = "cancelled";
      r.reason = "cancelled";
      return false;
    }
    if (rec->reason != StopReason::Exit || rec->exitCode != 0) {
      fail(name, stopReasonName(rec->reason),
           rec->reason == StopReason::Exit
               ? "exit code " + std::to_string(rec->exitCode)
           : rec->signal ? "killed by " + rec->signalName
                         : "");
      return false;
    }
    return true;
  };

  if (runPhase("A", spec.commands.phaseA, r.phases.a) &&
      runPhase("BC", spec.commands.phaseBC, r.phases.bc)) {
    const std::string &reportPath = vars["report"];
    if (!llvm::sys::fs::exists(reportPath)) {
      fail("BC", "no_report",
           "'" + reportPath + "': Phase B+C succeeded without writing it");
    } else if (Expected<q2::profiling::ProfileReport> report =
                   q2::profiling::readReport(reportPath)) {
      r.report = std::move(*report);
    } else {
      fail("BC", "bad_report", llvm::toString(report.takeError()));
    }
  }

  unsigned nTerms = mol->nTerms;
  if (nTerms == 0 && r.report && r.report->parameters) {
    if (auto md = q2::qpe::fromJSON(r.report->parameters->text, "parameters"))
      nTerms = unsigned(md->nTerms);
    else
      llvm::consumeError(md.takeError());
  }
  if (nTerms == 0)
    nTerms = nTermsHint;
  if (nTerms) {
    r.nTerms = nTerms;
    r.x = double(id.nEst) * id.nTrotter * nTerms;
  }
  if (r.status == "cancelled")
    return result;
  if (Error e = writePointRecord(joinPath(dir, "result.json"), r))
    return std::move(e);
  return result;
}
